import Foundation
import Synchronization
import TestSupport
import XCTest

/// `lockstep calibrate CLIP --imu TRACE` where the trace is a whole session and the clip a few
/// seconds of it (the adversarial sweep's case: a 6 s clip against a 500 s trace ran for more than
/// 300 s). The clip's own trace is placed 400 s into a 500 s log whose rest is the IMU at rest
/// (the trace's own first second, repeated) with 150 s of unrelated turning; calibrate gets
/// nothing else. The offset must be the short trace's, moved by exactly the 400 s, within 1 ms:
/// on the synthetic camera (scripts/fixtures/make-synthetic-camera) and on karma.mp4's real GoPro gyro.
final class LongTraceCalibrateTests: ScratchFolderTestCase {
    static let placedAtNs: Int64 = 400_000_000_000

    /// The CSV (`t_ns,gx,gy,gz[,...]`, header kept) placed `placedAtNs` into a 500 s trace.
    static func longTrace(_ csv: String) -> String {
        let lines = csv.split(separator: "\n").map(String.init)
        let header = lines.filter { Int64($0.split(separator: ",").first ?? "") == nil }
        let rows = lines.compactMap { line -> (t: Int64, cells: [String])? in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let t = Int64(cells[0]) else { return nil }
            return (t, Array(cells.dropFirst()))
        }
        let first = rows[0].t, last = rows[rows.count - 1].t
        let period = (last - first) / Int64(rows.count - 1)
        let rest = rows.filter { $0.t < first + 1_000_000_000 }
        var out = header
        var k = 0
        func filler(_ t: Int64) -> String {
            var cells = rest[k % rest.count].cells
            k += 1
            let s = Double(t) / 1e9
            if (100...250).contains(s), cells.count >= 3 {
                let turn = [0.6 * sin(0.9 * s) + 0.3 * sin(2.7 * s + 1), 0.5 * sin(1.7 * s + 2), 0.4 * sin(1.1 * s + 0.5)]
                for i in 0..<3 { cells[i] = String((Double(cells[i]) ?? 0) + turn[i]) }
            }
            return ([String(t)] + cells).joined(separator: ",")
        }
        var t: Int64 = 0
        while t < first + placedAtNs { out.append(filler(t)); t += period }
        out += rows.map { ([String($0.t + placedAtNs)] + $0.cells).joined(separator: ",") }
        t = last + placedAtNs + period
        while t <= 500_000_000_000 { out.append(filler(t)); t += period }
        return out.joined(separator: "\n") + "\n"
    }

    /// Calibrates `video` against the short trace and the long one, two at a time; the offsets at
    /// 0 s and 6 s of each.
    func offsets(video: URL, trace: URL, name: String) throws -> (short: [Double], long: [Double], seconds: Double)? {
        let scratch: URL = self.scratch
        let long = scratch.appendingPathComponent("\(name)-500s.csv")
        try Self.longTrace(String(contentsOf: trace, encoding: .utf8)).write(to: long, atomically: true, encoding: .utf8)
        let traces = [trace, long]
        let results = Mutex<[Int: CommandResult]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let r =
                (try? runCommand(
                    CommandLineTests.binary,
                    [
                        "calibrate", video.path, "--imu", traces[i].path, "-o",
                        scratch.appendingPathComponent("\(name)\(i).json").path
                    ],
                    timeout: 600, scratch: scratch))
                ?? CommandResult(status: -1, stdout: "", stderr: "could not run", seconds: 0, timedOut: false)
            results.withLock { $0[i] = r }
        }
        var found: [[Double]] = []
        for i in 0..<2 {
            let r = results.withLock { $0[i]! }
            guard r.status == 0, let data = try? Data(contentsOf: scratch.appendingPathComponent("\(name)\(i).json")),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let clock = ClockPieces(json: json)
            else {
                XCTFail("calibrate \(name) --imu \(traces[i].lastPathComponent) failed (\(r.status), \(r.timedOut ? "timed out" : "")): \(r.stderr)")
                return nil
            }
            print(
                String(
                    format: "%@ %@: exit 0 in %.1f s, offset %.3f ms at 0 s", name, i == 0 ? "short trace" : "500 s trace",
                    r.seconds, clock.offsetMs(at: 0)), r.stdout.replacingOccurrences(of: "\n", with: " | "))
            found.append([clock.offsetMs(at: 0), clock.offsetMs(at: 6)])
        }
        return (found[0], found[1], results.withLock { $0[1]!.seconds })
    }

    func testTheSyntheticCameraAgainstA500SecondTrace() throws {
        let dir = CommandLineTests.root.appendingPathComponent("Fixtures/synthetic")
        guard let o = try offsets(video: dir.appendingPathComponent("pan.mp4"), trace: dir.appendingPathComponent("pan-imu.csv"), name: "pan") else { return }
        // truth.json: 87 ms.
        XCTAssertEqual(o.long[0] + 400_000, 87, accuracy: 1)
        for i in 0..<2 { XCTAssertEqual(o.long[i] + 400_000, o.short[i], accuracy: 1) }
    }

    func testKarmaAgainstA500SecondTrace() throws {
        guard let karma = RealFootageShiftTests.karma else { return XCTFail("karma.mp4 is not beside the checkout (../shared/media/karma.mp4)") }
        let exported = scratch.appendingPathComponent("karma.csv")
        let e = try runCommand(CommandLineTests.binary, ["imu", "export", karma.path, "-o", exported.path], timeout: 300, scratch: scratch)
        guard e.status == 0 else { return XCTFail("lockstep imu export \(karma.lastPathComponent) failed (\(e.status)): \(e.stderr)") }
        guard let o = try offsets(video: karma, trace: exported, name: "karma") else { return }
        for i in 0..<2 { XCTAssertEqual(o.long[i] + 400_000, o.short[i], accuracy: 1) }
    }
}
