import Foundation
import Glibc
import GRDB
@testable import IIO
import Motion
import TraceStore
import XCTest

/// The server is a child process (`lockstep imu serve`) killed with SIGKILL mid-recording.
final class RecorderKillTests: IIOTestCase {
    /// Starts `lockstep imu serve` on a free port and returns it with the port it printed.
    func startServer(_ fixture: String, speed: Double = 1) throws -> (Process, UInt16) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["imu", "serve", Self.fixture(fixture), "--port", "0", "--speed", String(speed)]
        let err = Pipe()
        p.standardError = err
        try p.run()
        addTeardownBlock { if p.isRunning { kill(p.processIdentifier, SIGKILL) }; p.waitUntilExit() }
        var text = ""
        let deadline = Date() + 20
        while !text.contains("\n") && Date() < deadline {
            let d = err.fileHandleForReading.availableData
            if d.isEmpty { break }
            text += String(decoding: d, as: UTF8.self)
        }
        let prefix = "serving \(Self.fixture(fixture)) on 127.0.0.1:"
        guard text.hasPrefix(prefix), let port = UInt16(text.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            XCTFail("the server did not start: \(text)")
            throw CocoaError(.featureUnsupported)
        }
        return (p, port)
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
            if n >= 100 && atKill == 0 { atKill = n; kill(server.processIdentifier, SIGKILL); killed.signal() }
        }
        XCTAssertEqual(killed.wait(timeout: .now()), .success, "the server was killed mid-recording")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
        guard case .failed(let why) = stop else { return XCTFail("expected a failure, got \(stop)") }
        XCTAssertTrue(why.hasPrefix("the device stopped sending (iio_buffer_refill(iio:device0): "), why)
        XCTAssertEqual(stop.exitStatus, 1)
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
        kill(server.processIdentifier, SIGKILL)
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
        let (_, port) = try startServer("still.gcsv")
        let path = scratch.appendingPathComponent("int.sqlite").path
        let (record, first) = try startRecord(["--uri", "ip:127.0.0.1:\(port)", "-o", path])
        let p = record.process
        Thread.sleep(forTimeInterval: 1.2)
        kill(p.processIdentifier, SIGINT)
        let text = first + String(decoding: record.err.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text)
        let n = try TraceStore(path: path, mode: .readOnly).sampleCount(1)
        XCTAssertTrue(text.hasSuffix("stopped by Ctrl-C: \(n) samples in trace 1 of \(path)\n"), text)
        XCTAssertGreaterThan(n, 50)
    }

    /// Starts `lockstep imu record ARGS` and returns once it has said it is recording (its first line).
    func startRecord(_ args: [String]) throws -> ((process: Process, err: FileHandle), String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["imu", "record"] + args
        let err = Pipe()
        p.standardError = err
        try p.run()
        addTeardownBlock { if p.isRunning { kill(p.processIdentifier, SIGKILL) }; p.waitUntilExit() }
        var text = ""
        let deadline = Date() + 30
        while !text.contains("\n") && Date() < deadline {
            let d = err.fileHandleForReading.availableData
            if d.isEmpty { break }
            text += String(decoding: d, as: UTF8.self)
        }
        XCTAssertTrue(text.hasPrefix("recording "), text)
        return ((p, err.fileHandleForReading), text)
    }
}
