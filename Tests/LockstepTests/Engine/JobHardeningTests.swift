import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

final class CompositeOptionsCheckTests: XCTestCase {
    func says(_ configure: (inout CompositeOptions) -> Void) -> String {
        var o = CompositeOptions(inputs: ["a.mp4", "b.mp4"], output: "o.mp4", blend: .mix)
        configure(&o)
        do { try o.check(); return "accepted" } catch { return "\(error)" }
    }

    func testNumbersThatOverflowAreRefusedWithASentence() {
        XCTAssertEqual(says { $0.size = Size(width: 4_294_967_296, height: 2) }, "--size 4294967296x2: width and height must be at most 16384.")
        XCTAssertEqual(says { $0.stallTimeout = 1e11 }, "--stall-timeout must be a positive number of seconds, at most 86400; got 100000000000.0.")
        XCTAssertEqual(says { $0.stallTimeout = .nan }, "--stall-timeout must be a positive number of seconds, at most 86400; got nan.")
        XCTAssertEqual(says { $0.weights = [1e308, 1e308] }, "--weights are too large: their sum is not a finite number.")
        XCTAssertEqual(says { $0.weights = [.infinity, 1] }, "--weights must be finite numbers; got inf.")
        XCTAssertEqual(says { $0.weights = [.nan, 1] }, "--weights must be finite numbers; got nan.")
        XCTAssertEqual(says { $0.weights = [-1, 1] }, "--weights must be zero or positive, and not all zero.")
        XCTAssertEqual(says { $0.gains = [.nan, 1] }, "--gain values must be between 0 and 16.")
        XCTAssertEqual(says { $0.similarity = .nan }, "--similarity must be between 0 and 1; got nan.")
        XCTAssertEqual(says { $0.smoothness = -.infinity }, "--smoothness must be between 0 and 1; got -inf.")
        XCTAssertEqual(says { $0.frameRate = Rational(5000, 1) }, "--fps 5000: the frame rate must be between 1/1000 and 1000.")
        XCTAssertEqual(says { $0.frameRate = Rational(-30, 1) }, "--fps -30: the frame rate must be positive.")
        XCTAssertEqual(says { $0.encode.crf = -1 }, "--crf must be between 0 and 51; got -1.")
        XCTAssertEqual(says { $0.weights = [1e307, 1e307] }, "accepted")
        XCTAssertEqual(says { _ in }, "accepted")
    }

    func testTheJobItselfRefusesThem() {
        var o = CompositeOptions(inputs: [Fixtures.url("fg.mp4").path, Fixtures.url("bg.mp4").path], output: "/tmp/never.mp4", blend: .mix)
        o.stallTimeout = 1e11
        XCTAssertThrowsError(try CompositeJob(options: o).run()) { XCTAssertEqual("\($0)", "--stall-timeout must be a positive number of seconds, at most 86400; got 100000000000.0.") }
        o.stallTimeout = 30
        o.output = "/tmp/" + String(repeating: "n", count: 300) + ".mp4"
        XCTAssertThrowsError(try CompositeJob(options: o).run()) { XCTAssertEqual("\($0)", "\(o.output): the file name is 304 bytes long; the longest a folder takes is 255.") }
    }
}

/// Jobs on inputs that misbehave: timestamps that go back, an open that never returns.
final class JobHardeningTests: ScratchTestCase {
    /// Two 1-second MPEG-TS recordings joined byte for byte: the second one's timestamps start
    /// again where the first one's did.
    func joinedRecording() throws -> URL {
        let one = scratch.appendingPathComponent("one.ts"), joined = scratch.appendingPathComponent("joined.ts")
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:d=1", "-c:v", "libx264",
                "-bf", "0", "-g", "10", "-pix_fmt", "yuv420p", one.path
            ])
        let bytes = try Data(contentsOf: one)
        try (bytes + bytes).write(to: joined)
        return joined
    }

    func testATimeSyncInputWhoseTimestampsGoBackEndsTheOutputWithAWarning() throws {
        let joined = try joinedRecording()
        let (out, r) = try compose(.mix, ["q0.mp4", joined.path]) {
            $0.sync = .time; $0.audio = false
        }
        XCTAssertEqual(r.frames, 30)
        XCTAssertEqual(r.warnings.count, 1)
        XCTAssertEqual(r.warnings[0], ("input 2 (\(joined.path)): its timestamps go back from 2.367 s to 1.400 s at source frame 30; under --sync time the output ends there"), r.warnings[0])
        // (the file's own times, as ffprobe shows them: ffmpeg's MPEG-TS starts at 1.4 s)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.path))
        // Under index sync (named: time sync is the default since issue 21) the timestamps do
        // not matter: all 60 frames, no warning.
        let (_, i) = try compose(.mix, ["q0.mp4", joined.path]) {
            $0.audio = false; $0.sync = .index
        }
        XCTAssertEqual(i.frames, 60)
        XCTAssertEqual(i.warnings, [])
    }

    func testCancelEndsAJobWhoseInputNeverFinishesOpening() throws {
        let fifo = scratch.appendingPathComponent("nobody-writes.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let out = scratch.appendingPathComponent("o.mp4").path
        let job = CompositeJob(options: CompositeOptions(inputs: [Fixtures.url("q0.mp4").path, fifo], output: out, blend: .mix))
        let done = DispatchSemaphore(value: 0)
        let outcome = ErrorBox()
        Thread.detachNewThread {
            do { _ = try job.run() } catch { outcome.set(error) }
            done.signal()
        }
        usleep(500_000)
        job.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "cancel must end a job blocked in open(2)")
        XCTAssertEqual(outcome.error as? JobError, .cancelled)
        XCTAssertEqual(try leftovers(), ["nobody-writes.fifo"])
        // Let the opener's open(2) return (a writer appears and goes), so its thread ends.
        let w = open(fifo, O_WRONLY | O_NONBLOCK)
        if w >= 0 { close(w) }
    }
}

private final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Error?
    func set(_ e: Error) { lock.lock(); stored = e; lock.unlock() }
    var error: Error? { lock.lock(); defer { lock.unlock() }; return stored }
}
