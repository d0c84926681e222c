/// Betaflight / INAV / Cleanflight blackbox logs (`.bbl`, `.bfl`, `.txt`), decoded from bytes with
/// no I/O: each `H Product:Blackbox flight data recorder` line starts a log (one per arming), and
/// each log yields its gyro (rad/s) and accelerometer (m/s^2) at the `time` field's microseconds.
///
/// The frame loop follows the two reference readers, blackbox-tools src/parser.c
/// (flightLogParse) and the log viewer's js/flightlog_parser.js (parseLogData): a frame counts
/// only when the byte after it starts another frame or the log ends there; a frame that does not
/// is corrupt, and the search for the next frame starts one byte after its start; after a corrupt
/// frame no main frame is used until an I frame resynchronises the predictions; I and P frames
/// whose iteration or time went backwards or jumped too far (5000 iterations, 10 s) are refused
/// the same way; the 32-bit microsecond clock's rollover is carried into 64 bits. Unlike them, a
/// frame cut by the end of the data is where a truncated log stops (the bytes of a cut frame are
/// not searched again for frames), and a frame whose time repeats the previous one is not used
/// (a trace's timestamps strictly increase).
public enum BlackboxDecoder {
    /// What every log's first line starts with (blackbox-tools' LOG_START_MARKER goes on "by Nicholas Sherlock\n").
    public static let productMarker = Array("H Product:Blackbox flight data recorder".utf8)

    /// Whether `prefix` (a file's first bytes) holds a blackbox log's first line.
    public static func looksLikeBlackbox(_ prefix: some Collection<UInt8>) -> Bool {
        let bytes = Array(prefix)
        return bytes.withUnsafeBufferPointer { logStarts($0).first != nil }
    }

    /// The logs of a file, in order. Never throws: a log whose header cannot be used says why in `problem`.
    public static func decode(_ bytes: [UInt8]) -> [BlackboxLog] {
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    public static func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> [BlackboxLog] {
        let ranges = logRanges(buffer)
        return ranges.enumerated().map { k, range in BlackboxLogDecoder(buffer, log: range, number: k + 1, of: ranges.count).run() }
    }

    /// Each log's bytes, from its product line to the next one's (or the end). `release` is
    /// handed each stretch of the buffer searched, as the search leaves it (a mapped file's
    /// reader gives those pages back, so a long file is never resident whole).
    public static func logRanges(_ buffer: UnsafeBufferPointer<UInt8>, release: ((Range<Int>) -> Void)? = nil) -> [Range<Int>] {
        let starts = logStarts(buffer, release: release)
        return starts.indices.map { k in starts[k]..<(k + 1 < starts.count ? starts[k + 1] : buffer.count) }
    }

    /// The offsets of every product line (blackbox-tools searches the whole file the same way).
    static func logStarts(_ b: UnsafeBufferPointer<UInt8>, release: ((Range<Int>) -> Void)? = nil) -> [Int] {
        let m = productMarker
        var out: [Int] = []
        guard b.count >= m.count else { return out }
        var i = 0
        let last = b.count - m.count
        var released = 0
        while i <= last {
            // In stretches of 4 MiB, each released when searched.
            let stop = min(last, i + BlackboxLogDecoder.releaseStep)
            while i <= stop {
                if b[i] == 0x48, b[i + 1] == 0x20, b[i + 2] == 0x50 {  // "H P"
                    var j = 3
                    while j < m.count && b[i + j] == m[j] { j += 1 }
                    if j == m.count { out.append(i); i += m.count; continue }
                }
                i += 1
            }
            if let release, i > released { release(released..<min(i, b.count)); released = i }
        }
        if let release, released < b.count { release(released..<b.count) }
        return out
    }
}

/// One log of a blackbox file: its header, its IMU samples and what went wrong reading it.
public struct BlackboxLog: Sendable {
    public struct FrameCounts: Equatable, Sendable {
        public var i = 0, p = 0, g = 0, h = 0, s = 0, e = 0
        public init(i: Int = 0, p: Int = 0, g: Int = 0, h: Int = 0, s: Int = 0, e: Int = 0) {
            self.i = i; self.p = p; self.g = g; self.h = h; self.s = s; self.e = e
        }
    }
    /// Iterations the firmware should have logged and did not (lost to corruption, or a gap in
    /// logging), before the sample at `beforeNs`.
    public struct IterationGap: Equatable, Sendable {
        public var afterNs: Int64
        public var beforeNs: Int64
        public var iterations: Int64
    }

    /// 1-based position in the file, and how many logs the file holds.
    public var number: Int
    public var logCount: Int
    /// Byte offset of its `H Product` line in the file.
    public var offset: Int
    public var header = BlackboxHeader()
    /// One per used main frame: t = the `time` field (microseconds since power-on) in ns. Empty
    /// when the log was decoded in batches (`BlackboxLogDecoder.next`): then only counted.
    public var readings: [IMUReading] = []
    /// The used main frames, and the first and last one's time (ns), however they were handed out.
    public var sampleCount = 0
    public var firstSampleTime: Int64?
    public var lastSampleTime: Int64?
    public var hasAccel = false
    /// Frames accepted, by type.
    public var frames = FrameCounts()
    /// Frames that did not end where another began (skipped).
    public var corruptFrames = 0
    /// Whole main frames not used: after a corrupt frame until the next I frame, refused by the
    /// iteration/time checks, or repeating the previous time.
    public var droppedFrames = 0
    public var lostIterations: Int64 = 0
    public var lostIterationGaps = 0
    /// The first `BlackboxLog.gapsKept` of them.
    public var iterationGaps: [IterationGap] = []
    /// Where in the file the cut frame that ends a truncated log starts.
    public var truncatedAt: Int?
    /// True when the log ends with the firmware's "End of log" event.
    public var endMarker = false
    /// Why this log gives no samples when its header cannot be used, else nil.
    public var problem: String?

    public static let gapsKept = 100

    /// "log 2 of 3" (or "the log" when the file holds one).
    public var name: String { logCount == 1 ? "the log" : "log \(number) of \(logCount)" }

    /// Sentences for the user about what was skipped, each naming the log.
    public var warnings: [String] {
        var out: [String] = []
        if let p = problem { out.append("\(name): \(p)") }
        if corruptFrames > 0 || droppedFrames > 0 {
            var w = "\(name): \(corruptFrames) corrupt frame\(corruptFrames == 1 ? "" : "s") skipped"
            if droppedFrames > 0 { w += ", \(droppedFrames) main frame\(droppedFrames == 1 ? "" : "s") after them not used (no I frame to resynchronise from, or time/iteration out of order)" }
            out.append(w)
        }
        if lostIterationGaps > 0, let g = iterationGaps.first, let first = firstSampleTime {
            out.append(
                "\(name): \(lostIterationGaps) gap\(lostIterationGaps == 1 ? "" : "s") in the loop iterations, \(lostIterations) iteration\(lostIterations == 1 ? "" : "s") not logged; the first at "
                    + seconds(g.afterNs - first))
        }
        if let at = truncatedAt {
            let kept = lastSampleTime.map { "kept up to its last whole frame, at " + seconds($0 - (firstSampleTime ?? $0)) } ?? "no whole frame before it"
            out.append("\(name) is truncated: it stops inside a frame at byte \(at); \(kept)")
        }
        return out
    }

    private func seconds(_ ns: Int64) -> String {
        let ms = (ns + 500_000) / 1_000_000
        let text = "\(ms / 1000).\(String(1000 + ms % 1000).dropFirst()) s"
        return text
    }

    /// The trace's description: the firmware, the log's place in the file and its start.
    public func info(source: String) -> TraceInfo {
        var meta: [String: String] = ["source": "blackbox", "log": "\(number) of \(logCount)"]
        if let f = header.firmware { meta["firmware"] = f }
        if let b = header.value("Board information") { meta["board"] = b }
        if let c = header.value("Craft name"), !c.isEmpty { meta["craft"] = c }
        if let d = header.startDate { meta["start"] = d }
        if let l = header.looptimeUs { meta["looptimeUs"] = String(l) }
        meta["dataVersion"] = String(header.dataVersion)
        if let p = header.value("P interval") { meta["pInterval"] = p }
        if let s = header.value("gyro_scale") ?? header.value("gyro.scale") { meta["gyroScale"] = s }
        if let a = header.value("acc_1G") { meta["acc1G"] = a }
        if corruptFrames > 0 { meta["corruptFrames"] = String(corruptFrames) }
        if droppedFrames > 0 { meta["droppedFrames"] = String(droppedFrames) }
        if lostIterations > 0 { meta["lostIterations"] = String(lostIterations) }
        if let t = truncatedAt { meta["truncatedAtByte"] = String(t) }
        var scales: [String: Double] = [:]
        if let g = header.gyroRadiansPerUnit { for c in TraceInfo.gyroChannels { scales[c] = g } }
        if hasAccel, let a = header.acc1G { for c in TraceInfo.accelChannels { scales[c] = standardGravity / a } }
        return TraceInfo(
            deviceName: deviceName, sourceURI: source, clock: "flight-controller", rateHz: header.declaredRateHz,
            channelScales: scales, metadata: meta)
    }

    /// "log 2 of 3 from 2022-02-02 15:04:53, Betaflight 4.2.0 (8f2d21460) STM32F745": the log's
    /// start (the board's clock when it had one, else the first sample's time since power-on)
    /// and the firmware; a file of one log leaves out its place.
    public var deviceName: String {
        var start: String?
        if let d = header.startDate { start = String(d.prefix(19)).replacingOccurrences(of: "T", with: " ") } else if let t = firstSampleTime { start = seconds(t) }
        let firmware = header.firmware ?? "blackbox"
        if logCount > 1 { return "log \(number) of \(logCount)" + (start.map { " from \($0)" } ?? "") + ", \(firmware)" }
        return firmware + (start.map { ", from \($0)" } ?? "")
    }
}

/// Decodes one log's bytes: whole (`run`, every sample in `BlackboxLog.readings`), or front to
/// back in batches (`next`), which keeps no samples and gives the bytes it has passed back
/// through `release`, so that a long log is never in memory whole (`imu import`). A class so the
/// frame buffers are allocated once. The buffer must outlive it.
public final class BlackboxLogDecoder {
    private var stream: BlackboxStream
    /// What is known of the log so far: all of it once `next` has returned an empty batch.
    public private(set) var log: BlackboxLog
    private let start: Int
    private let release: ((Range<Int>) -> Void)?
    private var released: Int
    private var keepAll = false
    private var batch: [IMUReading] = []
    private var begun = false
    private var finished = false
    /// Why the header ends early: a line longer than `maxHeaderLine`.
    private var overlongLine: String?

    // Frame definitions, flattened.
    private var iDef = BlackboxHeader.FrameDef(), pDef = BlackboxHeader.FrameDef()
    private var gDef: BlackboxHeader.FrameDef?, hDef: BlackboxHeader.FrameDef?, sDef: BlackboxHeader.FrameDef?
    private var fieldCount = 0
    private var dataVersion = 2
    private var minthrottle: Int64 = 0, vbatref: Int64 = 0, motorLow: Int64 = 0
    private var intervalI = 32, pNum = 1, pDenom = 1

    // Main history: three frames in a ring (mainHistory[0..2] of the readers).
    private var ring: UnsafeMutablePointer<Int64>
    private var current = 0
    private var previous: Int?
    private var previous2: Int?
    private var other: UnsafeMutablePointer<Int64>  // G, H, S frames (read past)
    private var home: UnsafeMutablePointer<Int64>  // the last GPS home (H) frame
    private var otherSize = 0
    private var values = UnsafeMutablePointer<Int64>.allocate(capacity: 8)

    private var mainValid = false
    private var lastIteration: Int64 = -1
    private var lastTime: Int64 = -1
    private var rollover: Int64 = 0
    private var lastEmittedTime: Int64 = .min
    private var skipped: Int64 = 0

    // Field positions.
    private var motor0 = -1
    private var gyro: (Int, Int, Int) = (-1, -1, -1)
    private var acc: (Int, Int, Int)?
    private var homeIndex: (Int, Int) = (-1, -1)
    private var gyroScale = 0.0, accScale = 0.0

    static let maxFrameLength = 256
    /// Bytes of a header line after its "H " that are read (the reference readers stop at 2048);
    /// a longer line is no header a firmware wrote, and the log's problem.
    static let maxHeaderLine = 4096
    /// How far the end of an over-long header line is looked for, to say how long it is.
    static let headerLineSearch = 1 << 20
    /// Bytes decoded between releases; a batch also ends there, so a long stretch without
    /// samples (corrupt data) is released as it goes too.
    static let releaseStep = 4 << 20
    static let maxIterationJump: Int64 = 500 * 10
    static let maxTimeJump: Int64 = 10 * 1_000_000

    /// The `number`-th of `count` logs, at `range` of `bytes` (`BlackboxDecoder.logRanges`).
    public init(_ bytes: UnsafeBufferPointer<UInt8>, log range: Range<Int>, number: Int, of count: Int, release: ((Range<Int>) -> Void)? = nil) {
        stream = BlackboxStream(bytes, from: range.lowerBound, to: range.upperBound)
        log = BlackboxLog(number: number, logCount: count, offset: range.lowerBound)
        start = range.lowerBound
        released = range.lowerBound
        self.release = release
        ring = .allocate(capacity: 1); other = .allocate(capacity: 1); home = .allocate(capacity: 1)
    }

    deinit { ring.deallocate(); other.deallocate(); home.deallocate(); values.deallocate() }

    /// The whole log, every sample in `readings`.
    func run() -> BlackboxLog {
        keepAll = true
        begin()
        if !finished { readFrames(until: .max, bytes: .max) }
        return log
    }

    /// The next samples, at most `max`; empty at the end of the log. Nothing is kept: `log`
    /// counts them.
    public func next(max: Int = 4096) -> [IMUReading] {
        begin()
        batch.reserveCapacity(Swift.min(max, 4096))
        while !finished && batch.count < max {
            readFrames(until: max, bytes: Self.releaseStep)
            // A corrupt frame's search starts again one byte after its start: keep a margin.
            giveBack(upTo: finished ? stream.end : frameStart - 8192)
        }
        // Handed over, not kept: a decoder that has finished holds no samples.
        let out = batch
        batch = []
        return out
    }

    private func begin() {
        guard !begun else { return }
        begun = true
        readHeader()
        if let problem = prepare() {
            log.problem = problem
            finished = true
            giveBack(upTo: stream.end)
            return
        }
        log.hasAccel = acc != nil
        if keepAll { log.readings.reserveCapacity(Swift.max(16, (stream.end - stream.pos) / 24)) }
    }

    private func giveBack(upTo end: Int) {
        guard let release, end > released else { return }
        release(released..<end)
        released = end
    }

    // MARK: header

    private func readHeader() {
        var s = stream
        while s.pos + 1 < s.end, s.bytes[s.pos] == 0x48, s.bytes[s.pos + 1] == 0x20 {
            // One line, at most a few KB (the readers stop at 2048).
            var j = s.pos + 2
            while j < s.end, j - s.pos - 2 < Self.maxHeaderLine, s.bytes[j] != 0x0A, s.bytes[j] != 0 { j += 1 }
            if j - s.pos - 2 == Self.maxHeaderLine, j < s.end, s.bytes[j] != 0x0A, s.bytes[j] != 0 {
                // Cut here, the line's tail would be read as frames and its head as a value (a
                // 10,000-field name line read as 839 fields); the log's problem is this line.
                overlongLine = overlong(s.bytes, from: s.pos + 2, end: s.end)
                s.pos = j
                break
            }
            let lineEnd = j
            let line = String(decoding: UnsafeBufferPointer(rebasing: s.bytes[(s.pos + 2)..<lineEnd]), as: UTF8.self)
            if let colon = line.firstIndex(of: ":") {
                var value = String(line[line.index(after: colon)...])
                if value.hasSuffix("\r") { value.removeLast() }
                log.header.add(name: String(line[..<colon]), value: value)
            }
            guard j < s.end, s.bytes[j] == 0x0A else { s.pos = j; break }
            s.pos = j + 1
        }
        stream.pos = s.pos
    }

    /// Why a header line starting at `from` and longer than `maxHeaderLine` ends the header:
    /// its name, its length (looked for up to `headerLineSearch`), and for a field list, its count.
    private func overlong(_ b: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> String {
        var j = from, commas = 0, colon: Int?
        let limit = min(end, from + Self.headerLineSearch)
        while j < limit, b[j] != 0x0A, b[j] != 0 {
            if b[j] == 0x3A, colon == nil { colon = j } else if b[j] == 0x2C, colon != nil { commas += 1 }
            j += 1
        }
        let nameEnd = min(colon ?? j, from + 200)
        let name = MessageText.quote(String(decoding: UnsafeBufferPointer(rebasing: b[from..<nameEnd]), as: UTF8.self), limit: 40)
        let found = j < limit || j == end
        var text = "its header line '\(name)' is \(found ? "" : "over ")\(found ? j - from : Self.headerLineSearch) bytes long, over the \(Self.maxHeaderLine) a header line may have"
        if found, name.hasPrefix("Field "), name.hasSuffix(" name") { text += " (it names \(commas + 1) fields)" }
        return text
    }

    /// Checks the frame definitions; returns why the log cannot be read, or nil.
    private func prepare() -> String? {
        if let overlongLine { return overlongLine }
        let h = log.header
        guard let i = h.defs[UInt8(ascii: "I")], i.count > 0 else { return "its header defines no I frame fields" }
        guard i.count <= 256 else { return "its header defines \(i.count) I frame fields (at most 256 are read)" }
        guard i.predictor.count >= i.count, i.encoding.count >= i.count else {
            return "its header gives \(i.predictor.count) I frame predictors and \(i.encoding.count) encodings for \(i.count) fields"
        }
        guard var p = h.defs[UInt8(ascii: "P")], p.predictor.count >= i.count, p.encoding.count >= i.count else {
            return "its header lacks the P frame predictors or encodings"
        }
        p.names = i.names; p.signed = i.signed
        iDef = i; pDef = p
        fieldCount = i.count
        for name in ["loopIteration", "time"] where !i.names.contains(name) { return "its main frames have no \(name) field" }
        guard i.names.firstIndex(of: "loopIteration") == 0, i.names.firstIndex(of: "time") == 1 else {
            return "its main frames do not start with loopIteration and time"
        }
        func index(_ n: String) -> Int? { i.names.firstIndex(of: n) }
        guard let g0 = index("gyroADC[0]") ?? index("gyroData[0]"), let g1 = index("gyroADC[1]") ?? index("gyroData[1]"),
            let g2 = index("gyroADC[2]") ?? index("gyroData[2]")
        else { return "its main frames have no gyroADC fields" }
        gyro = (g0, g1, g2)
        guard let gs = h.gyroRadiansPerUnit else { return "its header has no usable gyro_scale" }
        gyroScale = gs
        if let a0 = index("accSmooth[0]"), let a1 = index("accSmooth[1]"), let a2 = index("accSmooth[2]"), let one = h.acc1G {
            acc = (a0, a1, a2)
            accScale = standardGravity / one
        }
        motor0 = index("motor[0]") ?? -1
        dataVersion = h.dataVersion
        minthrottle = h.minthrottle; vbatref = h.vbatref; motorLow = h.motorOutputLow
        intervalI = h.intervalI
        (pNum, pDenom) = h.intervalP
        guard pNum >= 1, pDenom >= 1, pNum <= pDenom else { return "its P interval \(h.value("P interval") ?? "") is not a fraction of at most 1" }

        // Every definition's predictors and encodings must be ones we know, so a frame is never
        // read by guess (the readers exit on an unknown one).
        var defsToCheck: [(String, BlackboxHeader.FrameDef)] = [("I", iDef), ("P", pDef)]
        for (c, name) in [("G", "G"), ("H", "H"), ("S", "S")] {
            guard let d = h.defs[UInt8(ascii: Unicode.Scalar(c)!)], d.count > 0 else { continue }
            guard d.count <= 256, d.predictor.count >= d.count, d.encoding.count >= d.count else {
                return "its header's \(name) frame definition is incomplete"
            }
            defsToCheck.append((name, d))
            switch name {
            case "G": gDef = d
            case "H": hDef = d
            default: sDef = d
            }
        }
        for (name, d) in defsToCheck {
            for k in 0..<d.count {
                let e = d.encoding[k], pr = d.predictor[k]
                guard [0, 1, 3, 6, 7, 8, 9, 10].contains(e) else {
                    let what =
                        [
                            4: " (Elias delta, an experimental Cleanflight encoding)", 5: " (Elias delta, an experimental Cleanflight encoding)",
                            11: " (Elias gamma, an experimental Cleanflight encoding)"
                        ][e] ?? ""
                    return "field \(d.names[k]) of its \(name) frames uses encoding \(e)\(what), which is not read"
                }
                guard (0...11).contains(pr) else { return "field \(d.names[k]) of its \(name) frames uses predictor \(pr), which is not known" }
            }
        }
        if var g = gDef {
            // Home coordinates come in pairs with one predictor id; the second reads GPS_home[1]
            // (parser.c rewrites it to HOME_COORD_1 the same way).
            for k in 1..<max(1, g.count) where g.predictor[k - 1] == 7 && g.predictor[k] == 7 { g.predictor[k] = 256 }
            gDef = g
        }
        if let hd = hDef { homeIndex = (hd.names.firstIndex(of: "GPS_home[0]") ?? -1, hd.names.firstIndex(of: "GPS_home[1]") ?? -1) }

        ring.deallocate()
        ring = .allocate(capacity: 3 * fieldCount)
        ring.initialize(repeating: 0, count: 3 * fieldCount)
        otherSize = max(gDef?.count ?? 0, hDef?.count ?? 0, sDef?.count ?? 0, 1)
        other.deallocate(); home.deallocate()
        other = .allocate(capacity: otherSize); other.initialize(repeating: 0, count: otherSize)
        home = .allocate(capacity: otherSize); home.initialize(repeating: 0, count: otherSize)
        values.initialize(repeating: 0, count: 8)
        return nil
    }

    // MARK: frames

    private enum Kind { case i, p, g, h, s, e }

    @inline(__always) private func kind(_ c: UInt8) -> Kind? {
        switch c {
        case 0x49: .i
        case 0x50: .p
        case 0x47: gDef == nil ? nil : .g
        case 0x48: hDef == nil ? nil : .h
        case 0x53: sDef == nil ? nil : .s
        case 0x45: .e
        default: nil
        }
    }

    // The frame loop's state, kept between batches.
    private var last: Kind?
    private var frameStart = 0
    private var prematureEOF = false

    /// Reads frames until the log ends (then `finished`), `max` samples are in the batch, or
    /// `bytes` more bytes have been read.
    private func readFrames(until max: Int, bytes: Int) {
        let stop = bytes == .max ? Int.max : stream.pos + bytes
        while true {
            if batch.count >= max || stream.pos >= stop { return }
            let atEnd = stream.pos >= stream.end
            let command: UInt8 = atEnd ? 0 : stream.bytes[stream.pos]
            if !atEnd { stream.pos += 1 }
            if let lastKind = last {
                let size = stream.pos - frameStart
                let nextStarts = !atEnd && isMarker(command)
                if size <= Self.maxFrameLength && (nextStarts || (atEnd && !prematureEOF)) {
                    complete(lastKind)
                    if lastKind == .e && endOfLog { break }
                } else if prematureEOF {
                    // The data ends inside this frame: the log was cut here.
                    log.truncatedAt = frameStart
                    invalidate()
                    break
                } else {
                    log.corruptFrames += 1
                    invalidate()
                    stream.pos = frameStart + 1
                    stream.eof = false
                    last = nil
                    continue
                }
            }
            if atEnd { break }
            frameStart = stream.pos - 1
            if let k = kind(command) {
                last = k
                parse(k)
                prematureEOF = stream.eof
            } else {
                mainValid = false
                last = nil
            }
        }
        finished = true
    }

    private var endOfLog = false

    @inline(__always) private func isMarker(_ c: UInt8) -> Bool { kind(c) != nil }

    private func invalidate() {
        mainValid = false
        previous = nil
        previous2 = nil
    }

    private func parse(_ k: Kind) {
        switch k {
        case .i:
            parseFrame(iDef, into: ring + current * fieldCount, previous: previous.map { ring + $0 * fieldCount }, previous2: nil, skipped: 0)
        case .p:
            skipped = skippedIterations()
            parseFrame(
                pDef, into: ring + current * fieldCount, previous: previous.map { ring + $0 * fieldCount },
                previous2: previous2.map { ring + $0 * fieldCount }, skipped: skipped)
        case .g: parseFrame(gDef!, into: other, previous: nil, previous2: nil, skipped: 0)
        case .h: parseFrame(hDef!, into: other, previous: nil, previous2: nil, skipped: 0)
        case .s: parseFrame(sDef!, into: other, previous: nil, previous2: nil, skipped: 0)
        case .e: parseEvent()
        }
    }

    private var event: (type: UInt32, iteration: Int64, time: Int64)?

    /// Event payloads as Betaflight writes them (flightlog_parser.js parseEventFrame): the frame
    /// must be read to its end so the next one is found; LOGGING_RESUME moves the iteration and
    /// time checks on, LOG_END ("End of log\0") ends the log.
    private func parseEvent() {
        let type = stream.byte()
        event = (type, 0, 0)
        switch type {
        case 0: _ = stream.unsignedVB()  // sync beep: time
        case 10: for _ in 0..<5 { _ = stream.byte() }  // autotune cycle start
        case 11: for _ in 0..<4 { _ = stream.byte() }  // autotune cycle result
        case 12: for _ in 0..<4 { _ = stream.byte() }; _ = stream.unsignedVB()  // autotune targets: s16 s16 u8 u8 (+ vb)
        case 13:  // in-flight adjustment
            let f = stream.byte()
            if f > 127 { for _ in 0..<4 { _ = stream.byte() } } else { _ = stream.signedVB() }
        case 14: event = (type, Int64(stream.unsignedVB()), Int64(stream.unsignedVB()))  // logging resume
        case 15: _ = stream.unsignedVB()  // disarm: reason
        case 20: _ = stream.byte(); _ = stream.signedVB(); _ = stream.byte(); _ = stream.byte()  // gtune result
        case 30: _ = stream.unsignedVB(); _ = stream.unsignedVB()  // flight mode: new, last
        case 40: _ = stream.byte(); for _ in 0..<4 { _ = stream.byte() }  // twitch test: stage, float
        case 255:
            let message = Array("End of log\0".utf8)
            var matches = true
            for b in message where stream.byte() != UInt32(b) { matches = false }
            // The log ends here, whatever follows (padding up to the next log or the end of the flash).
            if matches { stream.end = stream.pos } else { event = nil }
        default: event = nil
        }
    }

    // MARK: completion

    private func complete(_ k: Kind) {
        switch k {
        case .i: completeMain(intra: true)
        case .p: completeMain(intra: false)
        case .g: log.frames.g += 1
        case .h:
            log.frames.h += 1
            home.update(from: other, count: otherSize)
        case .s: log.frames.s += 1
        case .e:
            guard let e = event else { return }
            log.frames.e += 1
            if e.type == 14 { lastIteration = e.iteration; lastTime = e.time }
            if e.type == 255 { endOfLog = true; log.endMarker = true }
        }
    }

    private func completeMain(intra: Bool) {
        let f = ring + current * fieldCount
        // The 32-bit microsecond clock wraps every 71.6 minutes (parser.c flightLogDetectAndApplyTimestampRollover).
        let raw = UInt32(truncatingIfNeeded: f[1])
        if lastTime != -1, raw < UInt32(truncatingIfNeeded: lastTime), raw &- UInt32(truncatingIfNeeded: lastTime) < UInt32(Self.maxTimeJump) {
            rollover += 0x1_0000_0000
        }
        f[1] = Int64(raw) + rollover
        let iteration = f[0], time = f[1]
        let inOrder =
            lastIteration == -1
            || (iteration >= lastIteration && iteration < lastIteration + Self.maxIterationJump && time >= lastTime && time < lastTime + Self.maxTimeJump)
        if intra {
            log.frames.i += 1
            if inOrder {
                if lastIteration != -1 {
                    // Beyond the step to the next iteration the intervals log (which a P frame would have had).
                    let lost = iteration - lastIteration - 1 - skippedIterations()
                    if lost > 0 { recordGap(lost, beforeNs: time &* 1000) }
                }
                mainValid = true
            } else {
                invalidate()
            }
        } else {
            log.frames.p += 1
            if mainValid && !inOrder { invalidate() }
        }
        if mainValid {
            lastIteration = iteration
            lastTime = time
            emit(f)
        } else {
            log.droppedFrames += 1
        }
        // Rotate: after an I frame both earlier states are the I frame (the viewer's completeIntraframe).
        if intra {
            previous = current; previous2 = current
        } else if mainValid {
            previous2 = previous; previous = current
        } else {
            return
        }
        current = (current + 1) % 3
        if current == previous { current = (current + 1) % 3 }
        if current == previous2 { current = (current + 1) % 3 }
    }

    private func recordGap(_ lost: Int64, beforeNs: Int64) {
        log.lostIterations += lost
        log.lostIterationGaps += 1
        if log.iterationGaps.count < BlackboxLog.gapsKept {
            log.iterationGaps.append(.init(afterNs: lastEmittedTime == .min ? beforeNs : lastEmittedTime, beforeNs: beforeNs, iterations: lost))
        }
    }

    @inline(__always) private func emit(_ f: UnsafeMutablePointer<Int64>) {
        let t = f[1] &* 1000
        guard t > lastEmittedTime else { log.droppedFrames += 1; return }
        lastEmittedTime = t
        let g = SIMD3(Double(f[gyro.0]), Double(f[gyro.1]), Double(f[gyro.2])) * gyroScale
        var a: SIMD3<Double>?
        if let acc { a = SIMD3(Double(f[acc.0]), Double(f[acc.1]), Double(f[acc.2])) * accScale }
        let reading = IMUReading(t: t, gyro: g, accel: a)
        if keepAll { log.readings.append(reading) } else { batch.append(reading) }
        log.sampleCount += 1
        if log.firstSampleTime == nil { log.firstSampleTime = t }
        log.lastSampleTime = t
    }

    /// shouldHaveFrame (parser.c): whether iteration `i` is logged under the I and P intervals.
    @inline(__always) private func shouldHaveFrame(_ i: Int64) -> Bool {
        let iv = Int64(intervalI)
        let m = ((i % iv) + iv) % iv
        return (m + Int64(pNum) - 1) % Int64(pDenom) < Int64(pNum)
    }

    /// Iterations left out on purpose after the last main frame, up to the next logged one. At
    /// most `maxIterationJump`: a frame further on is refused anyway, and a header's "I interval"
    /// or "P interval" of two billion made this loop (parser.c's, unbounded) run for minutes per frame.
    private func skippedIterations() -> Int64 {
        guard lastIteration != -1 else { return 0 }
        var count: Int64 = 0
        var i = lastIteration + 1
        let most = min(Int64(intervalI) + Int64(pDenom), Self.maxIterationJump)
        while !shouldHaveFrame(i) && count < most { count += 1; i += 1 }
        return count
    }

    // MARK: fields

    private func parseFrame(
        _ def: BlackboxHeader.FrameDef, into frame: UnsafeMutablePointer<Int64>, previous: UnsafeMutablePointer<Int64>?,
        previous2: UnsafeMutablePointer<Int64>?, skipped: Int64
    ) {
        let n = def.count
        def.predictor.withUnsafeBufferPointer { predictor in
            def.encoding.withUnsafeBufferPointer { encoding in
                def.signed.withUnsafeBufferPointer { signed in
                    var i = 0
                    while i < n {
                        if predictor[i] == 6 {  // INC: the iteration, counting the ones skipped on purpose
                            frame[i] = skipped + 1 + (previous?[i] ?? 0)
                            i += 1
                            continue
                        }
                        switch encoding[i] {
                        case 0, 1, 3, 9:
                            var value: Int64
                            switch encoding[i] {
                            case 0: value = stream.signedVB()
                            case 1: value = Int64(stream.unsignedVB())
                            case 3: value = -BlackboxStream.signExtend(stream.unsignedVB() & 0x3FFF, bits: 14)  // NEG_14BIT
                            default: value = 0  // NULL
                            }
                            value = predict(i, predictor[i], value, frame, previous, previous2)
                            // Fields are 32 bits wide: wrap as the firmware's int32/uint32 did (parser.c parseFrame).
                            frame[i] = i < signed.count && signed[i] != 0 ? Int64(Int32(truncatingIfNeeded: value)) : Int64(UInt32(truncatingIfNeeded: value))
                            i += 1
                        case 8:
                            stream.tag8_4S16(into: values, version: dataVersion)
                            for j in 0..<4 where i < n { frame[i] = predict(i, predictor[i], values[j], frame, previous, previous2); i += 1 }
                        case 7, 10:
                            if encoding[i] == 7 { stream.tag2_3S32(into: values) } else { stream.tag2_3SVariable(into: values) }
                            for j in 0..<3 where i < n { frame[i] = predict(i, predictor[i], values[j], frame, previous, previous2); i += 1 }
                        default:  // 6: TAG8_8SVB, up to 8 consecutive fields behind one byte of flags
                            var group = 1
                            while group < 8 && i + group < n && encoding[i + group] == 6 { group += 1 }
                            if group == 1 {
                                values[0] = stream.signedVB()
                            } else {
                                var flags = stream.byte()
                                for j in 0..<group { values[j] = flags & 1 != 0 ? stream.signedVB() : 0; flags >>= 1 }
                            }
                            for j in 0..<group { frame[i] = predict(i, predictor[i], values[j], frame, previous, previous2); i += 1 }
                        }
                    }
                }
            }
        }
    }

    /// applyPrediction (parser.c, flightlog_parser.js). Values the IMU does not use (motors, GPS)
    /// get 0 for a missing reference instead of stopping the log, as the readers do.
    @inline(__always) private func predict(
        _ i: Int, _ predictor: Int, _ value: Int64, _ current: UnsafeMutablePointer<Int64>,
        _ previous: UnsafeMutablePointer<Int64>?, _ previous2: UnsafeMutablePointer<Int64>?
    ) -> Int64 {
        switch predictor {
        case 0: return value
        case 1: return value &+ (previous?[i] ?? 0)
        case 2:
            guard let p = previous else { return value }
            return value &+ 2 &* p[i] &- (previous2 ?? p)[i]
        case 3:
            guard let p = previous else { return value }
            return value &+ (p[i] &+ (previous2 ?? p)[i]) / 2  // truncates toward zero, like C
        case 4: return value &+ minthrottle
        case 5: return value &+ (motor0 >= 0 && motor0 < i ? current[motor0] : 0)
        case 7: return value &+ (homeIndex.0 >= 0 ? home[homeIndex.0] : 0)
        case 256: return value &+ (homeIndex.1 >= 0 ? home[homeIndex.1] : 0)
        case 8: return value &+ 1500
        case 9: return value &+ vbatref
        case 10: return value &+ (lastTime >= 0 ? lastTime : 0)
        case 11: return value &+ motorLow
        default: return value
        }
    }
}
