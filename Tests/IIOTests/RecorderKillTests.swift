import Foundation
import GRDB
import Glibc
import Motion
import TestSupport
import TraceStore
import XCTest

@testable import IIO

/// The server is a child process (`lockstep imu serve`) killed with SIGKILL mid-recording.
final class RecorderKillTests: IIOTestCase {
    /// `lockstep imu serve FIXTURE` on a free port at `speed`.
    func startServer(_ fixture: String, speed: Double = 1) throws -> (BackgroundProcess, UInt16) {
        try serveProcess(fixture, ["--speed", String(speed)])
    }

    func testKilledServerLeavesEveryReceivedSampleAndASecondRecordingAppends() throws {
        let (server, port) = try startServer("shake.gcsv")
        let (_, original, _) = try Self.load("shake.gcsv")
        let path = scratch.appendingPathComponent("kill.sqlite").path
        let store = try TraceStore(path: path)
        let sink = TestSink(store)
        let recorder = Recorder(options: RecorderOptions(uri: "ip:127.0.0.1:\(port)", accel: true))
        let killed = DispatchSemaphore(value: 0)
        var atKill = 0
        let started = Date()
        let (stop, n) = recorder.run(into: sink) { n in
            if n >= 100 && atKill == 0 { atKill = n; kill(server.pid, SIGKILL); killed.signal() }
        }
        XCTAssertEqual(killed.wait(timeout: .now()), .success, "the server was killed mid-recording")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
        guard case .failed(let why) = stop else { return XCTFail("expected a failure, got \(stop)") }
        XCTAssertTrue(why.hasPrefix("the device stopped sending (iio_buffer_refill(iio:device0): "), why)
        XCTAssertFalse(stop.wasAskedFor)
        XCTAssertGreaterThanOrEqual(n, atKill)
        XCTAssertLessThan(n, original.count, "it stopped before the end of the trace")
        XCTAssertEqual(sink.commits.reduce(0, +), n)

        // The store holds exactly what was received, and is a sound SQLite file.
        let first = try store.samples(of: sink.trace!)
        XCTAssertEqual(first.count, n)
        assertSameTrace(first, Array(original.prefix(n)), gyroScale: 0.001065264, accelScale: 0.000244140625 * 9.80665)
        try store.close()

        // A second recording, from a new server, is a new trace; the first is untouched.
        let (_, port2) = try startServer("pan.csv", speed: 0)
        let again = try record(RecorderOptions(uri: "ip:127.0.0.1:\(port2)", sampleLimit: 300), into: path)
        XCTAssertEqual(again.stop, .sampleLimitReached)
        let reopened = try TraceStore(path: path, mode: .readOnly)
        XCTAssertEqual(try reopened.traces().map(\.id), [sink.trace!, again.trace!])
        XCTAssertEqual(try reopened.samples(of: sink.trace!).map(\.t), first.map(\.t))
        XCTAssertEqual(try reopened.sampleCount(again.trace!), 300)
        let check = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        XCTAssertEqual(check, ["ok"])
    }

    func testTheRecordCommandReportsAKilledServerWithStatus1() throws {
        let (server, port) = try startServer("shake.gcsv")
        let path = scratch.appendingPathComponent("cli.sqlite").path
        // The clock starts when the recording has (a loaded machine may take a while to start the binary).
        let (record, first) = try startRecord(["--uri", "ip:127.0.0.1:\(port)", "--accel", "-o", path])
        Thread.sleep(forTimeInterval: 1.5)
        kill(server.pid, SIGKILL)
        let rest = String(decoding: record.err.readDataToEndOfFile(), as: UTF8.self)
        record.process.waitUntilExit()
        let r = (status: record.process.terminationStatus, stderr: first + rest)
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "recording lockstep_fixture from ip:127.0.0.1:\(port) into \(path) as trace 1")
        XCTAssertTrue(lines.last!.hasPrefix("Error: recording failed: the device stopped sending (iio_buffer_refill(iio:device0): "), r.stderr)
        XCTAssertTrue(lines.last!.hasSuffix("samples in trace 1 of \(path))"), r.stderr)
        let kept = try TraceStore(path: path, mode: .readOnly).samples(of: 1)
        XCTAssertGreaterThan(kept.count, 100, "about 1.5 s at 200 Hz was received")
        let (_, original, _) = try Self.load("shake.gcsv")
        assertSameTrace(kept, Array(original.prefix(kept.count)), gyroScale: 0.001065264, accelScale: 0.000244140625 * 9.80665)
    }

    func testCtrlCOnTheRecordCommandIsAUserStopWithStatus0() throws {
        try stopRecord(with: SIGINT, expecting: 0, closing: "stopped by Ctrl-C: ", suffix: "")
    }

    /// SIGTERM and SIGHUP (a closed terminal) stop it as cleanly as Ctrl-C: every committed
    /// sample stays, the store is sound, the last line says why, the status is 128 + the signal.
    func testSIGTERMOnTheRecordCommandKeepsTheSamplesWithStatus143() throws {
        try stopRecord(with: SIGTERM, expecting: 143, closing: "Error: stopped by SIGTERM (", suffix: ")")
    }

    func testSIGHUPOnTheRecordCommandKeepsTheSamplesWithStatus129() throws {
        try stopRecord(with: SIGHUP, expecting: 129, closing: "Error: stopped by SIGHUP (", suffix: ")")
    }

    private func stopRecord(with sig: Int32, expecting status: Int32, closing: String, suffix: String) throws {
        // A looping replay, and the signal once 60 samples are stored (not after a fixed time:
        // under load a 3 s replay could end first, or nothing be stored yet).
        let (_, port) = try serveProcess("still.gcsv", ["--speed", "1", "--loop"])
        let path = scratch.appendingPathComponent("sig\(sig).sqlite").path
        let (record, first) = try startRecord(["--uri", "ip:127.0.0.1:\(port)", "-o", path])
        let p = record.process
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, ((try? TraceStore(path: path, mode: .readOnly).sampleCount(1)) ?? 0) < 60 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, sig), "imu record never caught signal \(sig)")
        kill(p.processIdentifier, sig)
        let text = first + String(decoding: record.err.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .exit, "it exited by itself, not killed by the signal: \(text)")
        XCTAssertEqual(p.terminationStatus, status, text)
        let n = try TraceStore(path: path, mode: .readOnly).sampleCount(1)
        XCTAssertTrue(text.hasSuffix("\(closing)\(n) samples in trace 1 of \(path)\(suffix)\n"), text)
        XCTAssertGreaterThanOrEqual(n, 60)
        let check = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        XCTAssertEqual(check, ["ok"])
    }

    /// Starts `lockstep imu record ARGS` and returns once it has said it is recording (its first line).
    func startRecord(_ args: [String]) throws -> ((process: Process, err: FileHandle), String) {
        let p = try startLockstep(["imu", "record"] + args)
        XCTAssertTrue(p.firstLine.hasPrefix("recording "), p.firstLine)
        return ((p.process, p.stderr), p.firstLine)
    }
}
