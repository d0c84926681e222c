import Foundation
import Motion

/// Reads the motion files that are told by their content (Motion's `MotionFileKind`): blackbox
/// logs, blackbox_decode CSVs and ArduPilot DataFlash logs, decoded whole into traces; Insta360
/// files are named in a refusal. The decoding itself is Motion's (pure).
public enum MotionFiles {
    /// The kind of a motion file, the one place it is decided: `format` when the user gave one,
    /// else `MotionFileKind.detect` on a regular file's first 64 KiB and last 32 bytes, then its
    /// name. A missing file, a folder or a FIFO is told by its name alone (their readers say why
    /// they cannot be read; a FIFO's bytes are never taken here).
    public static func kind(path: String, format: TraceFormat? = nil) -> MotionFileKind {
        if let format { return .text(format) }
        var head: [UInt8] = [], tail: [UInt8] = []
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let h = FileHandle(forReadingAtPath: path) {
            defer { try? h.close() }
            head = [UInt8]((try? h.read(upToCount: 1 << 16)) ?? Data())
            if st.st_size >= 32, (try? h.seek(toOffset: UInt64(st.st_size - 32))) != nil { tail = [UInt8]((try? h.read(upToCount: 32)) ?? Data()) }
        }
        return MotionFileKind.detect(head: head, tail: tail, path: path)
    }

    /// The one-line refusal for a kind that is recognised and not read, nil for the others.
    public static func refusal(_ kind: MotionFileKind, path: String) -> TraceFileError? {
        switch kind {
        case .insta360:
            return TraceFileError(path: path, "an Insta360 file: its gyro is in Insta360's own trailer records, which Lockstep does not read; export the gyro with Gyroflow as .gcsv and use that")
        default:
            return nil
        }
    }

    /// Every log of a blackbox file with samples, as traces numbered by their place in the file.
    /// Logs without samples are named in `skipped`; a file with none at all is an error.
    public static func readBlackbox(path: String) throws -> (traces: [MotionTrace], skipped: [String]) {
        let file = try MappedFile(path: path)
        return try blackboxTraces(BlackboxDecoder.decode(file.bytes), path: path)
    }

    /// The logs with samples as traces (their readings as decoded: none when they were only
    /// counted), and sentences about the others; an error when no log has samples.
    static func blackboxTraces(_ logs: [BlackboxLog], path: String) throws -> (traces: [MotionTrace], skipped: [String]) {
        var traces: [MotionTrace] = []
        var skipped: [String] = []
        var empty: [Int] = []
        for log in logs {
            if log.sampleCount == 0 {
                // An arming without a logged frame is common (dozens in a day's flash): one line for all of them.
                if let p = log.problem { skipped.append("\(log.name): \(p)") } else { empty.append(log.number) }
                continue
            }
            traces.append(
                MotionTrace(
                    id: Int64(log.number), info: log.info(source: path), hasAccel: log.hasAccel,
                    readings: log.readings, warnings: log.warnings.map { "\(path): \($0)" }))
        }
        if !empty.isEmpty {
            let list = empty.prefix(20).map(String.init).joined(separator: ", ") + (empty.count > 20 ? ", ..." : "")
            skipped.append(logs.count == 1 ? "the log holds no frames" : "\(empty.count) of its \(logs.count) logs \(empty.count == 1 ? "holds" : "hold") no frames (\(list))")
        }
        guard !traces.isEmpty else {
            let why =
                logs.count == 1
                ? (logs[0].problem ?? "it holds no frames")
                : "none of its \(logs.count) logs holds gyro samples (\(skipped.prefix(3).joined(separator: "; "))\(skipped.count > 3 ? "; ..." : ""))"
            throw TraceFileError(path: path, "a blackbox log, but \(why)")
        }
        return (traces, skipped)
    }

    /// An ArduPilot DataFlash log: one trace per IMU instance (trace 1 is IMU 0), named by the
    /// firmware its first MSG gives, and what was skipped (sentences naming the file; they are about
    /// the whole file, so they come with any trace of it). A log with no IMU samples is an error.
    public static func readDataFlash(path: String) throws -> (traces: [MotionTrace], notes: [String]) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw TraceFileError(path: path, "cannot be read (\(error.localizedDescription))")
        }
        let log = data.withUnsafeBytes { raw in DataFlashDecoder.decode(raw.bindMemory(to: UInt8.self)) }
        let withSamples = log.instances.filter { !$0.readings.isEmpty }
        guard !withSamples.isEmpty else { throw TraceFileError(path: path, "an ArduPilot DataFlash log, but \(log.problem ?? "it holds no IMU samples")") }
        let warnings = log.warnings.map { "\(path): \($0)" }
        let traces = withSamples.map { instance in
            let firmware = log.firmware ?? "ArduPilot"
            var meta = ["source": "ArduPilot DataFlash", "instance": "IMU \(instance.number) of \(log.instances.count)"]
            if let f = log.firmware { meta["firmware"] = f }
            if log.skippedBytes > 0 { meta["skippedBytes"] = String(log.skippedBytes) }
            if let t = log.truncatedAt { meta["truncatedAtByte"] = String(t) }
            let name = log.instances.count == 1 ? firmware : "IMU \(instance.number) of \(log.instances.count), \(firmware)"
            let info = TraceInfo(deviceName: name, sourceURI: path, clock: "flight-controller", metadata: meta)
            return MotionTrace(id: Int64(instance.number + 1), info: info, hasAccel: instance.hasAccel, readings: instance.readings)
        }
        return (traces, warnings)
    }

    /// A blackbox_decode CSV as one trace (id 1).
    public static func readBlackboxCSV(path: String) throws -> MotionTrace {
        let lines = try LineReader(path: path)
        var parser = BlackboxCSV(source: path)
        var readings: [IMUReading] = []
        while let line = try lines.next() {
            if let s = try parser.line(line, number: lines.lineNumber) { readings.append(s) }
        }
        try parser.finish()
        guard !readings.isEmpty else { throw TraceFileError(path: path, "no samples") }
        return MotionTrace(
            id: 1, info: parser.info(), hasAccel: parser.hasAccel, readings: readings,
            warnings: parser.assumptions.map { "\(path): \($0)" })
    }
}
