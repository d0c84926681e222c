import Compositor
import Foundation
import Synchronization
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// One test per failure mode people hit with GPUImage's movie writer (the issue numbers are
/// BradLarson/GPUImage's). Each builds the condition, composites it with Lockstep, and checks the
/// output twice, independently: `verify` (timestamps, provenance, pictures, audio) and the
/// fixtures' barcodes read back through the ffmpeg CLI. Chroma keys use GPUImage's math
/// (`--keyer gpuimage`), as the movies those reports were about did.
final class GPUImageRegressionTests: ScratchTestCase {

    func assertVerifies(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> VerifyReport {
        let r = try VerifyJob(options: VerifyOptions(movie: url.path)).run()
        XCTAssertEqual(r.violations.map(\.message), [], file: file, line: line)
        XCTAssertTrue(r.provenance, "the output carries provenance", file: file, line: line)
        return r
    }

    /// Reads band `s` (scaled into a quad cell when asked) of every frame.
    func identities(_ url: URL, band s: Int, cell: Int? = nil) throws -> [Int?] {
        identities(try LumaVideo.decode(url), band: s, cell: cell)
    }

    /// `identities` of pictures already decoded (several bands of one output, one decode).
    func identities(_ v: LumaVideo, band s: Int, cell: Int? = nil) -> [Int?] {
        let region = cell.map { BarcodeRegion.band(s).scaled(by: 0.5, offsetX: Double($0 % 2) * 160, offsetY: Double($0 / 2) * 120) } ?? .band(s)
        return v.frames.map { f in Barcode.read(f, width: v.width, region: region).flatMap { $0.source == s ? $0.index : nil } }
    }

    // #1403: the last second of the output lost. #1635 too, below.
    func testTheLastSecondIsNotLost() throws {
        let (out, r) = try compose(.chromakey, [Fixtures.url("fg.mp4").path, Fixtures.url("bg.mp4").path]) { $0.keyer = .gpuimage }
        _ = try assertVerifies(out)
        XCTAssertEqual(r.frames, 60)
        XCTAssertEqual(try identities(out, band: 1), (0..<60).map { $0 }, "every foreground frame, the last one included")
    }

    func testAnInputUnderHalfASecondIsWrittenWhole() throws {
        let (out, _) = try compose(.chromakey, [Fixtures.url("short.mp4").path, Fixtures.url("bg.mp4").path]) { $0.keyer = .gpuimage }
        _ = try assertVerifies(out)
        XCTAssertEqual(try identities(out, band: 1), (0..<12).map { $0 })
    }

    /// The quad of q0-q3 (four lengths, each with its tone), made once for the two tests that
    /// look at it (its pictures, its sound); the folder is removed in the class tearDown.
    nonisolated(unsafe) static var madeQuad: (folder: URL, out: URL, result: CompositeResult)?
    override class func tearDown() {
        if let made = madeQuad { try? FileManager.default.removeItem(at: made.folder) }
        madeQuad = nil
        super.tearDown()
    }
    func quadOfFourLengths() throws -> (URL, CompositeResult) {
        if let made = Self.madeQuad { return (made.out, made.result) }
        let folder = try Scratch.makeFolder("lockstep-GPUImageRegressionTests-quad")
        let names = ["q0.mp4", "q1.mp4", "q2.mp4", "q3.mp4"].map { Fixtures.url($0).path }
        let (out, r) = try Self.compose(in: folder, .quad, names)
        Self.madeQuad = (folder, out, r)
        return (out, r)
    }

    // #1635: inputs of different lengths: as long as the shortest, nothing frozen at the end.
    func testInputsOfDifferentLengthsEndWithTheShortestAndNothingFreezes() throws {
        let (out, r) = try quadOfFourLengths()
        let report = try assertVerifies(out)
        XCTAssertEqual(report.frames, 48)
        XCTAssertEqual(r.endedBy, 3)
        let pictures = try LumaVideo.decode(out)
        for i in 0..<4 { XCTAssertEqual(identities(pictures, band: i, cell: i), (0..<48).map { $0 }, "input \(i) advances to the end") }
    }

    // #934: only one audio track written.
    func testEveryInputsAudioIsWritten() throws {
        let (out, _) = try quadOfFourLengths()
        _ = try assertVerifies(out)
        let samples = try AudioAnalysis.decodeMono(out)
        let levels = [440.0, 660, 880, 1100].map { AudioAnalysis.goertzelPower(samples[...], frequency: $0, rate: 48000) }
        for (f, l) in zip([440, 660, 880, 1100], levels) { XCTAssertGreaterThan(l, 1e-4, "\(f) Hz is in the mix") }
    }

    // #1501, #744: dropped, duplicated, out-of-order frames.
    func testNoFrameIsDroppedDuplicatedOrReordered() throws {
        for sync in SyncMode.allCases {
            let (out, _) = try compose(.quad, [Fixtures.url("q0.mp4").path, Fixtures.url("late.mkv").path]) { $0.sync = sync }
            let report = try assertVerifies(out)
            XCTAssertEqual(report.sync, sync.rawValue)
            let pictures = try LumaVideo.decode(out)
            XCTAssertEqual(identities(pictures, band: 0, cell: 0), (0..<45).map { $0 }, "\(sync)")
            XCTAssertEqual(identities(pictures, band: 1, cell: 1), (0..<45).map { $0 }, "\(sync)")
        }
    }

    // #830: video ending before audio, or audio outlasting video; here from an input whose own
    // audio runs 300 ms past its video.
    func testAudioNeverOutlastsVideo() throws {
        let long = scratch.appendingPathComponent("longaudio.mp4").path
        _ = try Shell.check(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-i", Fixtures.url("fg.mp4").path, "-f", "lavfi", "-i", "sine=f=660:r=48000:d=2.3",
                "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", long
            ])
        let (out, _) = try compose(.chromakey, [long, Fixtures.url("bg.mp4").path]) { $0.keyer = .gpuimage }
        _ = try assertVerifies(out)
        let a = try Probe.streams(out).first { $0.codecType == "audio" }!, v = try Probe.streams(out).first { $0.codecType == "video" }!
        XCTAssertEqual(a.duration!, v.duration!, accuracy: 0.001)
    }

    // #52, #652: black frames at the beginning.
    func testTheFirstFrameIsPictureNotBlack() throws {
        // An input whose audio starts before its video (priming, or a camera that starts sound first).
        let (out, _) = try compose(.quad, [Fixtures.url("late.mkv").path, Fixtures.url("q1.mp4").path])
        _ = try assertVerifies(out)
        XCTAssertEqual(try identities(out, band: 1, cell: 0).first, 0, "frame 0 shows source frame 0")
        XCTAssertEqual(try VideoTimestamps.pts(out).first, 0)
    }

    // #773: a crash or a hang with two movies and a writer: many jobs, several at once.
    func testManyJobsAtOnceNeitherCrashNorHang() throws {
        let group = DispatchGroup()
        let outcome = Mutex((results: [Int64](), failures: [String]()))
        let scratch: URL = scratch
        for _ in 0..<6 {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                do {
                    let (_, r) = try Self.compose(in: scratch, .chromakey, [Fixtures.url("fg.mp4").path, Fixtures.url("bg.mp4").path]) { $0.keyer = .gpuimage }
                    outcome.withLock { $0.results.append(r.frames) }
                } catch { outcome.withLock { $0.failures.append("\(error)") } }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "six jobs at once finish")
        let (results, failures) = outcome.withLock { $0 }
        XCTAssertEqual(failures, [])
        XCTAssertEqual(results, Array(repeating: 60, count: 6))
    }
}
