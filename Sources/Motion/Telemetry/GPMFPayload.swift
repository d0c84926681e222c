/// The sensor streams wanted from one GPMF payload (one `gpmd` packet, about a second of
/// capture): each stream's samples scaled to their units with SCAL, and the stream's
/// properties that say how to read them. GPMF properties are "sticky": they precede the data
/// item inside its STRM and apply to it (gpmf-parser's GPMF_FindPrev).
public struct GPMFPayload: Sendable, Equatable {
    /// DEVC's DVNM ("Camera", "Hero6 Black", ...).
    public var deviceName: String?
    /// MINF, the camera model, where the camera writes it (HERO8 and later).
    public var model: String?
    /// The camera's recording settings written as text at the device level (`EISE` "Y" or "N":
    /// electronic image stabilisation on; `EISA`: which, "HS EIS", "HS HLevel", "N"...), where a
    /// payload or the file's `udta` GPMF box has them.
    public var settings: [String: String] = [:]
    public var streams: [GPMFSensorStream] = []

    public init(deviceName: String? = nil, model: String? = nil, streams: [GPMFSensorStream] = []) {
        self.deviceName = deviceName; self.model = model; self.streams = streams
    }

    public static let imuKeys: Set<FourCC> = ["GYRO", "ACCL"]
    /// What motion analysis reads: the IMU, the per-frame camera and image orientations (CORI,
    /// IORI: HERO8 and later, MAX) and the frame-locked exposure stream (SHUT: its STMP times
    /// the frames on the camera's clock).
    public static let motionKeys: Set<FourCC> = ["GYRO", "ACCL", "CORI", "IORI", "SHUT"]
    /// Device-level text settings kept in `settings`.
    public static let settingKeys: Set<FourCC> = ["EISE", "EISA"]

    /// Reads the streams whose data key is in `keys` from a payload's bytes.
    public static func read(_ bytes: [UInt8], keys: Set<FourCC> = imuKeys) throws -> GPMFPayload {
        try read(items: GPMF.parse(bytes), keys: keys)
    }

    public static func read(items: [GPMFItem], keys: Set<FourCC> = imuKeys) throws -> GPMFPayload {
        var payload = GPMFPayload()
        func visit(_ items: [GPMFItem]) throws {
            for item in items {
                switch item.key {
                case "DEVC": try visit(item.children)
                case "DVNM": payload.deviceName = payload.deviceName ?? item.string
                case "MINF": payload.model = payload.model ?? item.string
                case let k where settingKeys.contains(k):
                    if let v = item.string, payload.settings[k.description] == nil { payload.settings[k.description] = trimmed(v) }
                case "STRM":
                    if let s = try stream(item.children, keys: keys) { payload.streams.append(s) }
                    // The udta box's "Video Global Setting" keeps the settings in a STRM of their own.
                    for c in item.children where settingKeys.contains(c.key) {
                        if let v = c.string, payload.settings[c.key.description] == nil { payload.settings[c.key.description] = trimmed(v) }
                    }
                default: break
                }
            }
        }
        try visit(items)
        return payload
    }

    /// Text without the spaces and NULs GoPro pads it with.
    static func trimmed(_ s: String) -> String {
        let pad: (Character) -> Bool = { $0 == " " || $0 == "\0" }
        return String(String(s.drop(while: pad).reversed()).drop(while: pad).reversed())
    }

    /// One STRM's wanted data item with its sticky properties, or nil when it holds none.
    static func stream(_ items: [GPMFItem], keys: Set<FourCC>) throws -> GPMFSensorStream? {
        var props = GPMFSensorStream(key: "    ")
        var scale: [Double]?
        var elementTypes: [UInt8]?
        for item in items {
            switch item.key {
            case "STNM": props.name = item.string
            case "SIUN": props.units = item.string
            case "UNIT": props.units = props.units ?? item.string
            case "SCAL": scale = try item.numbers()
            case "TYPE": elementTypes = try item.string.map(GPMFItem.elementTypes)
            case "ORIN": props.orientationIn = item.string
            case "ORIO": props.orientationOut = item.string
            case "TSMP": props.totalSamples = try item.numbers().first.flatMap { Int(exactly: $0) }
            case "STMP": props.timestampUs = try item.numbers().first
            case "TIMO": props.timeOffsetS = try item.numbers().first
            case "TMPC": props.temperatureC = try item.numbers().first
            default:
                guard keys.contains(item.key) else { continue }
                var s = props
                s.key = item.key
                s.samples = try GPMFPayload.scaled(
                    try item.rows(elementTypes: item.type == UInt8(ascii: "?") ? elementTypes : nil),
                    by: scale, key: item.key)
                return s
            }
        }
        return nil
    }

    /// SCAL divides every value (one divisor) or each column by its own (one per element).
    static func scaled(_ rows: [[Double]], by scale: [Double]?, key: FourCC) throws -> [[Double]] {
        guard let scale, !scale.isEmpty else { return rows }
        let width = rows.first?.count ?? 0
        guard scale.count == 1 || scale.count == width else {
            throw GPMFError("\(key): SCAL has \(scale.count) divisors for \(width) values per sample")
        }
        guard scale.allSatisfy({ $0 != 0 && $0.isFinite }) else { throw GPMFError("\(key): SCAL has a zero divisor") }
        if scale.count == 1 { let d = scale[0]; return rows.map { $0.map { $0 / d } } }
        return rows.map { row in zip(row, scale).map { $0 / $1 } }
    }
}

/// A GYRO, ACCL (or other) data item of one payload, scaled, with its properties.
public struct GPMFSensorStream: Sendable, Equatable {
    public var key: FourCC
    /// STNM, e.g. "Gyroscope (z,x,y)".
    public var name: String?
    /// SIUN (or UNIT), e.g. "rad/s", "m/s²".
    public var units: String?
    /// One row per sample, each value divided by SCAL, in the order stored.
    public var samples: [[Double]] = []
    /// ORIN/ORIO: the stored channels' orientation (e.g. "ZXY", "YxZ"; lowercase negative).
    public var orientationIn: String?
    public var orientationOut: String?
    /// TSMP: samples delivered since recording started, this payload's included.
    public var totalSamples: Int?
    /// STMP: microsecond timestamp of the first sample.
    public var timestampUs: Double?
    /// TIMO: how late the stream's data is against the video, seconds.
    public var timeOffsetS: Double?
    public var temperatureC: Double?

    public init(key: FourCC) { self.key = key }
}
