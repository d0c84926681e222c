/// The `H name:value` lines that open each blackbox log: the frame definitions (per frame type,
/// the field names, signedness, predictors and encodings) and the settings the decoder needs
/// (sampling intervals, data version, scales). As blackbox-tools src/parser.c parseHeaderLine and
/// the log viewer's js/flightlog_parser.js parseHeaderLine read them.
public struct BlackboxHeader: Sendable {
    /// One frame type's fields (I and P share names and signedness; P has its own predictors and encodings).
    struct FrameDef: Sendable {
        var names: [String] = []
        var signed: [Int] = []
        var predictor: [Int] = []
        var encoding: [Int] = []
        var count: Int { names.count }
    }

    /// Every header line, by name, in the order written (a later duplicate wins in `value`).
    public private(set) var lines: [(name: String, value: String)] = []
    private var index: [String: String] = [:]
    var defs: [UInt8: FrameDef] = [:]

    public func value(_ name: String) -> String? { index[name] }

    /// `Data version`: 1 or 2 (changes TAG8_4S16's packing).
    public var dataVersion: Int { index["Data version"].flatMap { Int($0) } ?? 1 }
    /// `Firmware revision`, e.g. "Betaflight 4.2.0 (8f2d21460) STM32F745", or "INAV 6.1.0 (...)".
    public var firmware: String? { index["Firmware revision"] }
    /// `Firmware type`: Betaflight and INAV write "Cleanflight"; absent in Baseflight's oldest logs.
    public var firmwareType: String? { index["Firmware type"] }
    /// `Log start datetime`, when the board had a clock (Betaflight writes 0000-01-01... otherwise).
    public var startDate: String? {
        guard let d = index["Log start datetime"], !d.hasPrefix("0000-") else { return nil }
        return d
    }
    /// `looptime` in microseconds (the gyro loop).
    public var looptimeUs: Int? { index["looptime"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } }

    /// `I interval` (an I frame every N iterations; blackbox-tools clamps it to at least 1).
    var intervalI: Int { max(1, index["I interval"].flatMap { Int($0) } ?? 32) }
    /// `P interval`: "num/denom" (older logs) or "denom" (Betaflight 4.1+: one logged iteration in denom).
    var intervalP: (num: Int, denom: Int) {
        guard let v = index["P interval"] else { return (1, 1) }
        let parts = v.split(separator: "/")
        if parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]) { return (n, d) }
        if let d = Int(v) { return (1, d) }
        return (1, 1)
    }

    var minthrottle: Int64 { index["minthrottle"].flatMap { Int64($0) } ?? 1150 }
    var vbatref: Int64 { index["vbatref"].flatMap { Int64($0) } ?? 4095 }
    /// `motorOutput`'s low end (MINMOTOR predictor), defaulting to minthrottle as the readers do.
    var motorOutputLow: Int64 {
        if let v = index["motorOutput"], let low = v.split(separator: ",").first.flatMap({ Int64($0.trimmingCharactersBlank()) }) { return low }
        return minthrottle
    }

    /// `gyro_scale` (or `gyro.scale`): the bits of an IEEE float, written in hex. nil when absent.
    public var gyroScaleHeader: Float? {
        guard let v = index["gyro_scale"] ?? index["gyro.scale"] else { return nil }
        var hex = Substring(v)
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) }
        guard let bits = UInt32(hex, radix: 16) else { return nil }
        return Float(bitPattern: bits)
    }

    /// Radians per second per unit of gyroADC. Betaflight, INAV and Cleanflight (type
    /// "Cleanflight", or none) scale to degrees per second; Baseflight's scale gives radians per
    /// microsecond (parser.c: "Baseflight uses a gyroScale that'll give radians per microsecond").
    public var gyroRadiansPerUnit: Double? {
        guard let s = gyroScaleHeader, s.isFinite, s > 0 else { return nil }
        if let t = firmwareType, t != "Cleanflight" { return Double(s) * 1_000_000 }
        return Double(s) * .pi / 180
    }

    /// `acc_1G`: accelerometer units per g. nil when absent or not positive.
    public var acc1G: Double? { index["acc_1G"].flatMap { Double($0) }.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }

    /// Logged main frames per second the header declares: one every `looptime` x
    /// `pid_process_denom` x denom/num microseconds.
    public var declaredRateHz: Double? {
        guard let loop = looptimeUs else { return nil }
        let pid = max(1, index["pid_process_denom"].flatMap { Int($0) } ?? 1)
        let p = intervalP
        guard p.num > 0, p.denom > 0 else { return nil }
        return 1e6 / (Double(loop * pid) * Double(p.denom) / Double(p.num))
    }

    mutating func add(name: String, value: String) {
        lines.append((name, value))
        index[name] = value
        guard name.hasPrefix("Field "), name.utf8.count > 7 else { return }
        let type = Array(name.utf8)[6]
        let what = name.dropFirst(8)
        var def = defs[type] ?? FrameDef()
        func ints() -> [Int] { value.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharactersBlank()) ?? -1 } }
        switch what {
        case "name": def.names = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case "signed": def.signed = ints()
        case "predictor": def.predictor = ints()
        case "encoding": def.encoding = ints()
        default: return
        }
        defs[type] = def
    }
}

extension Substring {
    func trimmingCharactersBlank() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
