import Foundation
import Glibc
import Motion
import TraceStore
import XCTest

@testable import IIO

/// A sink that fails (a full disk): the count reported is what was stored, never more.
final class RecorderFullDiskTests: IIOTestCase {
    /// Takes `allowed` commits into the store, then fails as SQLite does on a full disk.
    final class FillingSink: RecorderSink {
        struct Full: Error, CustomStringConvertible { var description: String { "database or disk is full" } }
        let inner: TestSink
        var allowed: Int
        init(_ store: TraceStore, allowed: Int) { inner = TestSink(store); self.allowed = allowed }
        func begin(_ info: TraceInfo, hasAccel: Bool) throws { try inner.begin(info, hasAccel: hasAccel) }
        func commit(_ samples: [IMUReading]) throws {
            guard allowed > 0 else { throw Full() }
            allowed -= 1
            try inner.commit(samples)
        }
    }

    func testTheBatchThatDidNotFitIsNotCounted() throws {
        let (server, _, _) = try serve("pan.csv")
        let store = try TraceStore(path: scratch.appendingPathComponent("full.sqlite").path)
        let sink = FillingSink(store, allowed: 3)
        var reported: [Int] = []
        let (stop, n) = Recorder(options: RecorderOptions(uri: "ip:127.0.0.1:\(server.port)", bufferSamples: 20)).run(into: sink) { reported.append($0) }
        XCTAssertEqual(stop, .failed("database or disk is full"))
        XCTAssertEqual(n, 60, "three batches of 20 stored; the fourth was not")
        XCTAssertEqual(try store.sampleCount(sink.inner.trace!), 60)
        XCTAssertEqual(reported, [20, 40, 60])
    }

    func testAFailedLastBatchMakesTheStopAFailure() throws {
        // The sample limit falls in the batch that cannot be stored: that is no success.
        let (server, _, _) = try serve("pan.csv")
        let store = try TraceStore(path: scratch.appendingPathComponent("full.sqlite").path)
        let sink = FillingSink(store, allowed: 2)
        let (stop, n) = Recorder(options: RecorderOptions(uri: "ip:127.0.0.1:\(server.port)", sampleLimit: 50, bufferSamples: 20)).run(into: sink)
        XCTAssertEqual(stop, .failed("database or disk is full"))
        XCTAssertEqual(n, 40)
    }

    func testTheRecordCommandOnAFullDiskReportsWhatItStored() throws {
        // The store may grow to 100 kB (RLIMIT_FSIZE; writes past it fail as on a full disk, and
        // SIGXFSZ is ignored so they fail instead of killing): a looping replay fills it.
        // A ThreadSanitizer build cannot start at all under that limit (its runtime faults with
        // SIGBUS in a mapping of its own, before main; `lockstep --version` alike): the plain run
        // (and --all's ASan run) test the command here; a TSan run says it skipped.
        let probe = try Self.run(["/bin/sh", "-c", "trap '' XFSZ; exec prlimit --fsize=100000 \"$0\" --version", Self.binary], timeout: 60)
        try XCTSkipUnless(
            probe.status == 0,
            "this build's lockstep does not start under a 100 kB file-size limit (exit \(probe.status): "
                + "\(probe.stderr.split(separator: "\n").prefix(2).joined(separator: " | "))); the plain build's run covers it")
        let (server, _, _) = try serve("shake.gcsv", loop: true)
        let path = scratch.appendingPathComponent("full.sqlite").path
        let r = try Self.run(
            [
                "/bin/sh", "-c", "trap '' XFSZ; exec prlimit --fsize=100000 \"$0\" \"$@\"", Self.binary,
                "imu", "record", "--uri", "ip:127.0.0.1:\(server.port)", "--accel", "-o", path
            ], timeout: 60)
        XCTAssertEqual(r.status, 1, r.stderr)
        let last = r.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("Error: recording failed: \(path): storing samples failed ("), last)
        let stored = try TraceStore(path: path, mode: .readOnly).sampleCount(1)
        XCTAssertGreaterThan(stored, 0)
        XCTAssertTrue(last.hasSuffix("(\(stored) samples in trace 1 of \(path))"), "reported \(last); stored \(stored)")
    }
}
