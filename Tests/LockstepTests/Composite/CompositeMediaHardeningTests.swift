import Compositor
import Foundation
import Media
import XCTest

@testable import Lockstep

/// Composite against inputs and outputs that used to crash, hang or stop it (issue 9).
final class CompositeMediaHardeningTests: ScratchTestCase {
    func make(_ name: String, _ args: [String]) throws -> String {
        let p = scratch.appendingPathComponent(name).path
        _ = try Shell.check("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args + [p])
        return p
    }

    func testQuadOfAWideAndATallInputWorks() throws {
        // Before: "Invalid argument (av_frame_get_buffer)".
        let wide = try make("wide.mp4", ["-f", "lavfi", "-i", "color=c=red:s=4000x16:r=30:d=0.2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let tall = try make("tall.mp4", ["-f", "lavfi", "-i", "color=c=blue:s=16x4000:r=30:d=0.2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let (out, result) = try compose(.quad, [wide, tall]) { $0.audio = false }
        XCTAssertEqual(result.canvas, Size(width: 4000, height: 16))
        XCTAssertEqual(result.frames, 6)
        let v = try Probe.streams(out).first { $0.codecType == "video" }
        XCTAssertEqual(v?.nbReadFrames, 6)
        // And the other way round, odd sizes included.
        let odd = try make("odd.mp4", ["-f", "lavfi", "-i", "color=c=green:s=17x3001:r=30:d=0.2", "-c:v", "libx264", "-pix_fmt", "yuv444p"])
        XCTAssertEqual(try compose(.quad, [tall, wide, odd]) { $0.audio = false }.1.frames, 6)
    }

    func testQuadWhoseFirstInputIsTinyWorks() throws {
        // Before: a 3x3 first input made a 2x2 canvas, cells of 0 pixels: "Invalid argument (av_frame_get_buffer)".
        let tiny = try make("tiny.mp4", ["-f", "lavfi", "-i", "color=c=green:s=3x3:r=30:d=0.2", "-c:v", "libx264", "-pix_fmt", "yuv444p"])
        let (_, result) = try compose(.quad, [tiny, Fixtures.url("q1.mp4").path]) { $0.audio = false }
        // A quad's canvas comes from its largest input (`Layout.canvas`): q1's 320x240.
        XCTAssertEqual(result.canvas, Size(width: 320, height: 240))
        XCTAssertEqual(result.frames, 6)
        // Written independently: a 1x1 picture by Lockstep's own writer cannot exist (4:2:0), so
        // a 2x2 one, first of a mix and of a quad.
        let two = scratch.appendingPathComponent("two.mp4").path
        let writer = try MovieWriter(
            path: two, container: "mp4", canvas: Size(width: 2, height: 2), frameRate: Rational(30, 1),
            settings: EncodeSettings(), withAudio: false)
        let frame = try Frame(width: 2, height: 2, color: YUVColor(y: 200, u: 128, v: 128))
        for k in 0..<4 { try writer.writeVideo(frame, index: Int64(k)) }
        try writer.finish()
        XCTAssertEqual(try compose(.quad, [two, Fixtures.url("q1.mp4").path]) { $0.audio = false }.1.canvas, Size(width: 320, height: 240))
        XCTAssertEqual(try compose(.quad, [two, tiny]) { $0.audio = false }.1.canvas, Size(width: 4, height: 4))
        XCTAssertEqual(try compose(.mix, [two, Fixtures.url("q1.mp4").path]) { $0.audio = false }.1.canvas, Size(width: 2, height: 2))
    }

    func testASizeTooSmallForQuadIsOneSentence() throws {
        XCTAssertThrowsError(try compose(.quad, ["q0.mp4", "q1.mp4"]) { $0.size = Size(width: 2, height: 2) }) { error in
            XCTAssertEqual("\(error)", "--size 2x2 is too small for quad: its 2 rows and 2 columns of cells need at least 2x2 pixels each")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [])
    }

    func testALongOutputNameWorksAndOneTooLongIsAnErrorNotACrash() throws {
        // Before: SIGSEGV for a 240-character name (its temporary outgrew NAME_MAX and the
        // writer's context was freed twice). Now the temporary's name is shortened: 240 works;
        // a final name over NAME_MAX is one sentence, and nothing is left.
        let long = scratch.appendingPathComponent(String(repeating: "o", count: 240) + ".mp4").path
        var options = CompositeOptions(inputs: [Fixtures.url("fg.mp4").path, Fixtures.url("bg.mp4").path], output: long, blend: .chromakey)
        options.audio = false
        XCTAssertNoThrow(try CompositeJob(options: options).run())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [(long as NSString).lastPathComponent])
        try FileManager.default.removeItem(atPath: long)

        options.output = scratch.appendingPathComponent(String(repeating: "o", count: 252) + ".mp4").path
        XCTAssertThrowsError(try CompositeJob(options: options).run()) { error in
            XCTAssertTrue("\(error)".hasSuffix("the file name is 256 bytes long; the longest a folder takes is 255."), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [])
    }

    func testCancellingAJobWhoseInputIsAFIFOWithNoWriterEndsItWithinASecond() throws {
        // Before: composite hung in open(2) for good, deaf to SIGINT and SIGTERM.
        let fifo = scratch.appendingPathComponent("in.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { let w = open(fifo, O_WRONLY | O_NONBLOCK); if w >= 0 { close(w) } }
        let out = scratch.appendingPathComponent("out.mp4").path
        let job = CompositeJob(options: CompositeOptions(inputs: [Fixtures.url("fg.mp4").path, fifo], output: out, blend: .chromakey))
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var error: Error? }  // written before `done` is signalled
        let box = Box()
        Thread {
            do { _ = try job.run() } catch { box.error = error }; done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 0.5), .timedOut)
        let raised = Date()
        job.cancel()
        // About 10 ms on a quiet machine; the bound is loose because a loaded CI machine may not
        // schedule the job's thread for a while (a hang still fails).
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertLessThan(Date().timeIntervalSince(raised), 5)
        XCTAssertEqual(box.error as? JobError, .cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// An H.264 input with a few bytes inverted in its middle.
    func corrupted(_ source: URL, _ name: String) throws -> String {
        var data = try Data(contentsOf: source)
        for fraction in [0.55, 0.7, 0.85] {
            let at = Int(Double(data.count) * fraction)
            for i in at..<(at + 200) { data[i] ^= 0xFF }
        }
        let p = scratch.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }

    func testADamagedInputStopsTheJobByDefaultAndIsConcealedOnRequest() throws {
        let clean = try make("src.mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"])
        let bad = try corrupted(URL(fileURLWithPath: clean), "bad.mp4")
        XCTAssertThrowsError(try compose(.mix, [Fixtures.url("bg.mp4").path, bad]) { $0.audio = false }) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(bad): damaged video: "), "\(error)")
        }
        let (out, result) = try compose(.mix, [Fixtures.url("bg.mp4").path, bad]) {
            $0.audio = false; $0.conceal = true
        }
        XCTAssertFalse(result.warnings.isEmpty)
        for w in result.warnings { XCTAssertTrue(w.hasPrefix("\(bad): damaged frame "), w); XCTAssertTrue(w.hasSuffix(", concealed"), w) }
        // The provenance names input 2 on each output frame made of a damaged source frame.
        let scan = try VerifyJob.scan(out.path)
        let damagedTicks = scan.frames.compactMap(\.provenance).filter { $0.damaged != nil }
        XCTAssertFalse(damagedTicks.isEmpty)
        XCTAssertTrue(damagedTicks.allSatisfy { $0.damaged == [1] })
        XCTAssertEqual(Set(damagedTicks.map { $0.src[1][0] }).count, result.warnings.count, "one per damaged source frame")
    }
}
