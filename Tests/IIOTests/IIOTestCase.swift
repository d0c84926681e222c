import Foundation
import Glibc
import Motion
import MotionIO
import TestSupport
import TraceStore
import XCTest

@testable import IIO

/// Scratch folder (TestSupport's), fixtures, the built `lockstep` binary and outside processes
/// for the IIO tests.
class IIOTestCase: ScratchFolderTestCase {
    static let root = Repository.root
    static func fixture(_ name: String) -> String { Repository.fixture("imu/\(name)") }

    /// The built `lockstep`, beside the test bundle in the products folder; LOCKSTEP_BINARY names
    /// another (to run the command-line tests against an older build, and see them fail).
    static var binary: String {
        if let other = ProcessInfo.processInfo.environment["LOCKSTEP_BINARY"], !other.isEmpty { return other }
        let xctest = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }
        return (xctest?.bundleURL.deletingLastPathComponent() ?? Bundle.main.bundleURL).appendingPathComponent("lockstep").path
    }

    /// A fixture's samples and header.
    static func load(_ name: String) throws -> (info: TraceInfo, samples: [IMUReading], hasAccel: Bool) {
        let path = fixture(name)
        let r = try TraceFileReader(path: path, format: TraceFormat(path: path)!)
        var all: [IMUReading] = []
        while true { let b = try r.next(); if b.isEmpty { break }; all += b }
        return (r.info, all, r.hasAccel)
    }

    /// An in-process replay server on a free loopback port, stopped at the end of the test.
    func serve(_ name: String, speed: Double = 0, loop: Bool = false) throws -> (IIODServer, ReplayDevice, [IMUReading]) {
        let (info, samples, accel) = try Self.load(name)
        let device = try ReplayDevice(info: info, samples: samples, hasAccel: accel)
        let server = try IIODServer(device: device, options: .init(port: 0, speed: speed, loop: loop))
        server.start()
        addTeardownBlock { server.stop() }
        return (server, device, samples)
    }

    /// Runs a program to its end (bounded by `timeout`), returning status and output.
    @discardableResult
    static func run(_ args: [String], timeout: Int = 20) throws -> (status: Int32, stdout: Data, stderr: String) {
        try Processes.run(args[0], Array(args.dropFirst()), timeout: timeout, stdin: nil)
    }

    func lockstep(_ args: [String], timeout: Int = 60) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try Self.run([Self.binary] + args, timeout: timeout)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// What a test class makes once for its tests (a store of pan.csv, a large trace), in a
    /// folder of its own outside the tests' scratch folders, removed in the class tearDown.
    nonisolated(unsafe) static var classFolder: URL?
    nonisolated(unsafe) static var panStore: String?
    override class func tearDown() {
        if let folder = classFolder { try? FileManager.default.removeItem(at: folder) }
        classFolder = nil
        panStore = nil
        super.tearDown()
    }

    func madeForClass() throws -> URL {
        if let folder = Self.classFolder { return folder }
        let folder = try Scratch.makeFolder("lockstep-\(type(of: self))-made")
        Self.classFolder = folder
        return folder
    }

    /// Copies to `path` a store holding pan.csv as trace 1, imported by `lockstep imu import`
    /// once for the class: the tests that need such a store as their starting point (a refusal
    /// must leave it byte-identical, a second import gets id 2) each had it imported again.
    func copyPanStore(to path: String) throws {
        if Self.panStore == nil {
            let made = try madeForClass().appendingPathComponent("pan.sqlite").path
            let r = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", made])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, "1\n")
            Self.panStore = made
        }
        try FileManager.default.copyItem(atPath: try XCTUnwrap(Self.panStore), toPath: path)
    }

    /// `lockstep ARGS` left running (under `wrapper`, e.g. prlimit, when given), killed at the
    /// end of the test; returns once it printed its first line.
    func startLockstep(_ args: [String], wrapper: [String] = []) throws -> BackgroundProcess {
        let all = wrapper + [Self.binary] + args
        let p = try BackgroundProcess(all[0], Array(all.dropFirst()))
        addTeardownBlock { p.end() }
        return p
    }

    /// `lockstep imu serve FIXTURE --port 0 EXTRA` running, with the port it said it serves on.
    func serveProcess(_ fixture: String, _ extra: [String] = [], wrapper: [String] = []) throws -> (BackgroundProcess, UInt16) {
        let p = try startLockstep(["imu", "serve", Self.fixture(fixture), "--port", "0"] + extra, wrapper: wrapper)
        let prefix = "serving \(Self.fixture(fixture)) on 127.0.0.1:"
        guard p.firstLine.hasPrefix(prefix), let port = UInt16(p.firstLine.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            XCTFail("the server did not start: \(p.firstLine)")
            throw CocoaError(.featureUnsupported)
        }
        return (p, port)
    }

    /// Records from `uri` into a store in the scratch folder, in-process.
    func record(_ options: RecorderOptions, into path: String) throws -> (stop: RecorderStateMachine.Stop, samples: Int, trace: Int64?) {
        let store = try TraceStore(path: path)
        let sink = TestSink(store)
        let (stop, n) = Recorder(options: options).run(into: sink)
        return (stop, n, sink.trace)
    }
}

final class TestSink: RecorderSink {
    let store: TraceStore
    var trace: Int64?
    var commits: [Int] = []
    init(_ store: TraceStore) { self.store = store }
    func begin(_ info: TraceInfo, hasAccel: Bool) throws { trace = try store.createTrace(info, hasAccel: hasAccel) }
    func commit(_ samples: [IMUReading]) throws { try store.append(samples, to: trace!); commits.append(samples.count) }
}

/// A recorder sink that keeps the samples in memory (no fsync between refills).
final class MemorySink: RecorderSink {
    var samples: [IMUReading] = []
    func begin(_ info: TraceInfo, hasAccel: Bool) throws {}
    func commit(_ samples: [IMUReading]) throws { self.samples += samples }
}

/// Asserts recorded samples equal the originals: timestamps exact, values within half an LSB.
func assertSameTrace(
    _ got: [IMUReading], _ want: [IMUReading], gyroScale: Double, accelScale: Double?,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(got.count, want.count, "sample count", file: file, line: line)
    XCTAssertEqual(got.map(\.t), Array(want.prefix(got.count)).map(\.t), "timestamps", file: file, line: line)
    var worst = 0.0, worstAccel = 0.0
    for (g, w) in zip(got, want) {
        worst = max(worst, abs(g.gyro.x - w.gyro.x), abs(g.gyro.y - w.gyro.y), abs(g.gyro.z - w.gyro.z))
        if let accelScale, let ga = g.accel, let wa = w.accel {
            worstAccel = max(worstAccel, abs(ga.x - wa.x), abs(ga.y - wa.y), abs(ga.z - wa.z))
            _ = accelScale
        }
    }
    XCTAssertLessThanOrEqual(worst, gyroScale / 2 * 1.000001, "gyro within half an LSB", file: file, line: line)
    if let accelScale {
        XCTAssertTrue(got.allSatisfy { $0.accel != nil }, "accel recorded", file: file, line: line)
        XCTAssertLessThanOrEqual(worstAccel, accelScale / 2 * 1.000001, "accel within half an LSB", file: file, line: line)
    }
}

/// A value shared between threads in tests, behind a lock.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.lock(); defer { lock.unlock() }; return stored }
    func set(_ value: T) { lock.lock(); stored = value; lock.unlock() }
    func update(_ body: (inout T) -> Void) { lock.lock(); body(&stored); lock.unlock() }
}
