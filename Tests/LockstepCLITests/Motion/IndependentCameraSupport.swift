import Foundation
import Synchronization

// Helpers for IndependentCameraTests: reading truth.json, a calibration profile and a snake
// report as the contract (CONTRACT-calibrate.md) defines them, and running commands with a
// time limit. Pure code first (tested in IndependentCameraTests without I/O), then processes.

/// A clock mapping, video time = IMU time + offset(v): the contract's pieces, each
/// offset(v) = offsetMs + driftPpm * 1e-3 * v (intercept at v = 0), holding from its fromVideoS to the
/// next piece's; the first piece also holds before its start.
struct ClockPieces: Equatable, Sendable {
    struct Piece: Equatable, Sendable { var fromVideoS: Double; var offsetMs: Double; var driftPpm: Double }
    var pieces: [Piece]

    func piece(at v: Double) -> Piece {
        pieces.last { $0.fromVideoS <= v } ?? pieces[0]
    }
    func offsetMs(at v: Double) -> Double {
        let p = piece(at: v)
        return p.offsetMs + p.driftPpm * 1e-3 * v
    }
    /// The IMU-clock time of video time v (seconds).
    func imuTime(at v: Double) -> Double { v - offsetMs(at: v) / 1000 }

    /// From a profile or a truth.json: `clockPieces` when present, else timeOffsetMs + clockDriftPpm.
    init?(json: [String: Any]) {
        if let list = json["clockPieces"] as? [[String: Any]], !list.isEmpty {
            var ps: [Piece] = []
            for item in list {
                guard let from = Self.number(item["fromVideoS"]), let a = Self.number(item["offsetMs"]) else { return nil }
                ps.append(Piece(fromVideoS: from, offsetMs: a, driftPpm: Self.number(item["driftPpm"]) ?? 0))
            }
            pieces = ps.sorted { $0.fromVideoS < $1.fromVideoS }
        } else if let a = Self.number(json["timeOffsetMs"]) {
            pieces = [Piece(fromVideoS: 0, offsetMs: a, driftPpm: Self.number(json["clockDriftPpm"]) ?? 0)]
        } else {
            return nil
        }
    }
    init(pieces: [Piece]) { self.pieces = pieces }

    static func number(_ any: Any?) -> Double? {
        if let d = any as? Double { return d }
        if let i = any as? Int { return Double(i) }
        if let n = any as? NSNumber { return n.doubleValue }
        return nil
    }
}

/// An axis mapping as a 3x3 matrix, camera = M * imu. Reads the contract's two spellings: an
/// orientation string (letter i = the IMU axis that becomes camera axis i, lowercase inverted,
/// "XYZ" identity) or a matrix.
enum AxisMatrix {
    static func read(_ any: Any?) -> [[Double]]? {
        if let s = any as? String { return fromString(s) }
        if let rows = any as? [[Any]], rows.count == 3 {
            let m = rows.map { $0.compactMap(ClockPieces.number) }
            return m.allSatisfy { $0.count == 3 } ? m : nil
        }
        return nil
    }

    static func fromString(_ s: String) -> [[Double]]? {
        let letters = Array(s)
        guard letters.count == 3 else { return nil }
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        for (i, c) in letters.enumerated() {
            guard let j = "xyz".firstIndex(of: Character(c.lowercased())) else { return nil }
            m[i]["xyz".distance(from: "xyz".startIndex, to: j)] = c.isUppercase ? 1 : -1
        }
        return m
    }

    /// Gyroflow's gcsv `orientation` (telemetry-parser `orient`: gyroflow[i] = sign * imu[letter i])
    /// lands in Gyroflow's camera frame (up, left, backward); ours is (right, down, forward).
    static func fromGyroflowOrientation(_ s: String) -> [[Double]]? {
        guard let g = fromString(s) else { return nil }
        let toCamera: [[Double]] = [[0, -1, 0], [-1, 0, 0], [0, 0, -1]]
        return multiply(toCamera, g)
    }

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func describe(_ m: [[Double]]) -> String {
        "[" + m.map { "[" + $0.map { String(format: "%g", $0) }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
    }
}

/// A snake --report CSV: the columns the contract names, by header.
struct PairingReport {
    struct Row { var frame: Int; var frameTime: Double; var imuTime: Double? }
    var rows: [Row]

    init?(csv: String) {
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return nil }
        let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let f = header.firstIndex(of: "frame"), let ft = header.firstIndex(of: "frame_time_s"),
            let it = header.firstIndex(of: "imu_time_s")
        else { return nil }
        rows = lines.compactMap { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > max(f, ft, it), let n = Int(cells[f]), let t = Double(cells[ft]) else { return nil }
            return Row(frame: n, frameTime: t, imuTime: Double(cells[it]))
        }
    }

    /// Frames judged, and those paired within tolerance (s) of the truth's IMU time.
    func score(truth: ClockPieces, tolerance: Double, excluding: (Double) -> Bool = { _ in false })
        -> (judged: Int, good: Int, unpaired: Int, worstMs: Double, medianMs: Double)
    {
        var judged = 0, good = 0, unpaired = 0
        var errors: [Double] = []
        for r in rows where !excluding(r.frameTime) {
            judged += 1
            guard let t = r.imuTime else { unpaired += 1; continue }
            let e = abs(t - truth.imuTime(at: r.frameTime))
            errors.append(e * 1000)
            if e <= tolerance { good += 1 }
        }
        errors.sort()
        return (judged, good, unpaired, errors.last ?? .nan, errors.isEmpty ? .nan : errors[errors.count / 2])
    }
}

/// "clock jump ... at 4.02 s": the video times named "at <T> s" on stderr lines that say "clock jump".
func clockJumpTimes(in stderr: String) -> [Double] {
    let pattern = try! NSRegularExpression(pattern: #"\bat (-?[0-9]+(?:\.[0-9]+)?) s\b"#)
    return stderr.split(separator: "\n").filter { $0.contains("clock jump") }.flatMap { line -> [Double] in
        let text = String(line)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            Range(m.range(at: 1), in: text).flatMap { Double(text[$0]) }
        }
    }
}

// MARK: - processes

struct CommandResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    var timedOut: Bool
}

/// Runs a program with its output in files (no pipe can fill up), killed after `timeout` s.
func runCommand(_ executable: URL, _ args: [String], timeout: Double, scratch: URL) throws -> CommandResult {
    let tag = UUID().uuidString
    let outURL = scratch.appendingPathComponent(".out-\(tag)"), errURL = scratch.appendingPathComponent(".err-\(tag)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    let p = Process()
    p.executableURL = executable
    p.arguments = args
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    let started = Date()
    try p.run()
    let deadline = started.addingTimeInterval(timeout)
    var timedOut = false
    while p.isRunning {
        if Date() > deadline { timedOut = true; p.terminate(); break }
        usleep(20_000)
    }
    p.waitUntilExit()
    try out.close(); try err.close()
    return CommandResult(
        status: p.terminationStatus,
        stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
        seconds: Date().timeIntervalSince(started), timedOut: timedOut)
}

/// A job computed once, by whoever asks first: started ahead on a background queue (so two
/// variants run at once on two cores) or run by the test that needs it. Its serial queue makes
/// the second asker wait for the first.
final class OnceJob<Value: Sendable>: Sendable {
    private let queue: DispatchQueue
    private let value = Mutex<Value?>(nil)
    private let begun = Mutex(false)
    private let work: @Sendable () -> Value

    init(label: String, _ work: @escaping @Sendable () -> Value) {
        queue = DispatchQueue(label: label)
        self.work = work
    }

    func start() {
        begun.withLock { $0 = true }
        queue.async { _ = self.compute() }
    }
    func wait() -> Value {
        begun.withLock { $0 = true }
        return queue.sync { self.compute() }
    }
    /// Started (ahead or by a test): a class tearDown waits for these, leaving no process behind.
    var wasStarted: Bool { begun.withLock { $0 } }

    private func compute() -> Value {
        if let v = value.withLock({ $0 }) { return v }
        let v = work()
        value.withLock { $0 = v }
        return v
    }
}
