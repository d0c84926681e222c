import Foundation
import TestSupport
import XCTest

/// The timestamp-sync kit end to end, with the ffmpeg CLI as the pipeline under test: a coded
/// movie from `lockstep testsrc`, something done to it by ffmpeg, then `verify --coded --json`
/// checked against what was done.
/// (The helpers and the shared source; the cases are in `CodedVerifyTests` and, the longest, in
/// `CodedVerifySlowTests`.)
class CodedVerifyTestCase: ScratchFolderTestCase {
    /// One 10 s 320x180 30 fps lossless (FFV1 + PCM) source shared by the tests, made once.
    /// 320x180, not 640x360: the claims are about codes and sound, not size (the code is read
    /// at 256x144 in the independent generator's case, and `testTestsrcIsDeterministic...`
    /// verifies 320x180); every pipeline below encodes and decodes a quarter of the pixels.
    static let size = "320x180"
    static let source: Result<String, Error> = Result {
        let folder = try Scratch.makeFolder("lockstep-coded-source")
        let path = folder.appendingPathComponent("src.mkv").path
        let r = try Processes.lockstep(["testsrc", "-o", path, "--duration", "10", "--size", size, "--codec", "ffv1"])
        guard r.status == 0 else { throw Processes.Failure(description: "testsrc failed: \(r.stderr)") }
        return path
    }

    func src() throws -> String { try Self.source.get() }

    /// Runs ffmpeg on the source with `args` (between input and output) into `name`.
    func pipeline(_ name: String, input: String? = nil, _ args: [String]) throws -> String {
        let out = scratch.appendingPathComponent(name).path
        try Processes.check("ffmpeg", ["-v", "error", "-y", "-i", try input ?? src()] + args + [out])
        return out
    }

    static let h264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"]
    static let aac = ["-c:a", "aac", "-b:a", "128k"]

    func verify(_ file: String, _ extra: [String] = []) throws -> (status: Int32, doc: [String: Any], stderr: String) {
        let r = try Processes.lockstep(["verify", "--coded", "--json", file] + extra)
        let doc = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
        return (r.status, doc, r.stderr)
    }

    func offset(_ doc: [String: Any]) -> [String: Any] { doc["avOffsetMs"] as? [String: Any] ?? [:] }
    func verdict(_ doc: [String: Any], _ key: String) -> String? { (doc["verdicts"] as? [String: String])?[key] }
    func runs(_ doc: [String: Any], _ key: String) -> [[String: Int]] { doc[key] as? [[String: Int]] ?? [] }
}

/// The kit's default-tier cases: every verdict kind (offset within and outside ATSC's window,
/// codes missing after a rate change, drift, no code, a clip inside other footage, the HTML
/// report, the independent generator through a pipeline with drops).
final class CodedVerifyTests: CodedVerifyTestCase {
    func testNoChangeReadsEveryCodeWithZeroOffset() throws {
        let out = try pipeline("same.mp4", Self.h264 + Self.aac)
        let r = try verify(out)
        XCTAssertEqual(r.status, 0, "\(r.doc) \(r.stderr)")
        XCTAssertEqual(r.doc["frames"] as? Int, 300)
        XCTAssertEqual(runs(r.doc, "missing").count, 0)
        XCTAssertEqual(runs(r.doc, "repeated").count, 0)
        XCTAssertEqual(r.doc["firstCode"] as? Int, 0)
        XCTAssertEqual(r.doc["lastCode"] as? Int, 299)
        XCTAssertEqual(offset(r.doc)["mean"] as? Double ?? 99, 0, accuracy: 1)
        XCTAssertEqual(offset(r.doc)["max"] as? Double ?? 99, 0, accuracy: 1)
        XCTAssertGreaterThanOrEqual((offset(r.doc)["perSecond"] as? [[Double]])?.count ?? 0, 10, "at least once per second")
        XCTAssertEqual(verdict(r.doc, "atscIS191"), "pass")
    }

    func testAudioDelayed37msIsMeasuredAndPassesATSC() throws {
        let r = try verify(try pipeline("d37.mp4", ["-af", "adelay=37:all=1"] + Self.h264 + Self.aac))
        XCTAssertEqual(r.status, 0, "\(r.doc)")
        XCTAssertEqual(offset(r.doc)["mean"] as? Double ?? 0, 37, accuracy: 1)
        XCTAssertEqual(offset(r.doc)["min"] as? Double ?? 0, 37, accuracy: 1)
        XCTAssertEqual(offset(r.doc)["max"] as? Double ?? 0, 37, accuracy: 1)
        XCTAssertEqual(verdict(r.doc, "atscIS191"), "pass")
        XCTAssertEqual(verdict(r.doc, "ebuR37"), "pass")
    }

    func testAudioDelayed60msFailsATSC() throws {
        let r = try verify(try pipeline("d60.mp4", ["-af", "adelay=60:all=1"] + Self.h264 + Self.aac))
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(offset(r.doc)["mean"] as? Double ?? 0, 60, accuracy: 1)
        XCTAssertEqual(verdict(r.doc, "atscIS191"), "fail")
        XCTAssertEqual(verdict(r.doc, "bt1359Acceptable"), "pass")
    }

    func testThirtyTo25fpsListsTheDroppedCodes() throws {
        let r = try verify(try pipeline("r25.mp4", ["-vf", "fps=25"] + Self.h264 + Self.aac))
        XCTAssertEqual(r.status, 1)
        let missing = runs(r.doc, "missing")
        // The fps filter shows at output frame j the source frame nearest to j x 30/25: the
        // codes never nearest are the dropped ones (3, 9, 15, ...), each a run of one.
        let shown = Set((0..<250).map { Int((Double($0) * 1.2).rounded()) })
        let dropped = (0..<300).filter { !shown.contains($0) }
        XCTAssertEqual(missing.compactMap { $0["from"] }, dropped)
        XCTAssertEqual(missing.compactMap { $0["to"] }, dropped)
        XCTAssertEqual(runs(r.doc, "repeated").count, 0)
        XCTAssertEqual(r.doc["codesPerFrame"] as? Double ?? 0, 1.2, accuracy: 0.01)
    }

    func testAudioResampledTo44kMonoAAC64kStillGivesTheOffset() throws {
        let r = try verify(try pipeline("a44.mp4", Self.h264 + ["-ar", "44100", "-ac", "1", "-c:a", "aac", "-b:a", "64k"]))
        XCTAssertEqual(r.status, 0, "\(r.doc)")
        XCTAssertEqual(offset(r.doc)["mean"] as? Double ?? 99, 0, accuracy: 1)
        XCTAssertGreaterThanOrEqual((offset(r.doc)["perSecond"] as? [[Double]])?.count ?? 0, 10)
    }

    func testAudioDriftingByATenthOfAPercentIsMeasured() throws {
        // 48048 Hz read as 48000: the audio runs 0.1% fast, so it drifts earlier by 60 ms a minute.
        let r = try verify(try pipeline("drift.mp4", ["-af", "asetrate=48048,aresample=48000"] + Self.h264 + Self.aac))
        let truth = (1 / 1.001 - 1) * 60_000
        XCTAssertEqual(offset(r.doc)["driftMsPerMin"] as? Double ?? 0, truth, accuracy: abs(truth) * 0.05, "\(offset(r.doc))")
    }

    func testTheHTMLReportRendersItsPlotsInAHeadlessBrowser() throws {
        let movie = try pipeline("late.mp4", ["-af", "adelay=60:all=1", "-vf", "select='not(between(n,100,104))'", "-fps_mode", "passthrough"] + Self.h264 + Self.aac)
        let html = scratch.appendingPathComponent("report.html").path, xml = scratch.appendingPathComponent("junit.xml").path
        let r = try Processes.lockstep(["verify", "--coded", "--report", html, "--junit", xml, movie])
        XCTAssertEqual(r.status, 1, r.stderr)
        let junit = try String(contentsOfFile: xml, encoding: .utf8)
        XCTAssertTrue(junit.contains("<testcase classname=\"lockstep.verify.coded\" name=\"ATSC IS-191\"><failure message=\"outside -15/+45 ms (positive: audio late); worst: +60."), junit)
        XCTAssertTrue(junit.contains("<failure message=\"missing codes 100-104 (before output frame 100)\">"), junit)
        // Chromium renders the page; its DOM holds both plots with their data drawn. One launch
        // both prints the DOM and takes the screenshot (a launch costs about 2 CPU-seconds).
        let browser = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        let png = scratch.appendingPathComponent("report.png").path
        let dom = String(
            decoding: try Processes.check("chromium", browser + ["--dump-dom", "--screenshot=" + png, "--window-size=1100,1500", "file://" + html]), as: UTF8.self)
        XCTAssertTrue(dom.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"offset-plot\""), dom)
        XCTAssertTrue(dom.contains("id=\"code-plot\""))
        XCTAssertTrue(dom.contains("<title>missing 100-104</title>"))
        XCTAssertEqual(dom.components(separatedBy: "<polyline").count - 1, 2)
        let shot = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(Array(shot.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
        XCTAssertGreaterThan(shot.count, 20_000, "a page with plots, not a blank one")
        if let keep = ProcessInfo.processInfo.environment["LOCKSTEP_KEEP_REPORT"] { try? FileManager.default.copyItem(atPath: png, toPath: keep) }
    }

    /// The second fixture generator: the codes written from README's description by a numpy
    /// script (25 fps, 1024x576, a gradient, 44.1 kHz mono), not by Lockstep. 4 s (was 6): the
    /// codes, the offset and the dropped run 50-52 need no more; its 1024x576 pictures are made,
    /// encoded and decoded three times over.
    func testACodedMovieMadeIndependentlyFromTheSpecIsRead() throws {
        let made = scratch.appendingPathComponent("ind.mp4").path
        try Processes.check(Repository.root.appendingPathComponent("scripts/fixtures/make-coded-independent").path, [made, "--seconds", "4", "--audio-delay-ms", "25"])
        let r = try verify(made)
        XCTAssertEqual(r.status, 0, "\(r.doc)")
        XCTAssertEqual(r.doc["frames"] as? Int, 100)
        XCTAssertEqual(r.doc["lastCode"] as? Int, 99)
        XCTAssertEqual(offset(r.doc)["mean"] as? Double ?? 0, 25, accuracy: 1)
        // And through a pipeline: frames 50-52 dropped, scaled down to a quarter of the width.
        let piped = try verify(
            try pipeline("ind-drop.mp4", input: made, ["-vf", "select='not(between(n,50,52))',scale=256:144", "-fps_mode", "passthrough", "-c:v", "libx264", "-crf", "30", "-c:a", "copy"]))
        XCTAssertEqual(runs(piped.doc, "missing"), [["from": 50, "to": 52, "outputFrame": 50]], "\(piped.doc)")
        XCTAssertEqual(offset(piped.doc)["mean"] as? Double ?? 0, 25, accuracy: 1)
    }

    func testAMovieWithoutCodeExits2AndSaysSo() throws {
        let bg = Repository.fixture("bg.mp4")
        let r = try Processes.lockstep(["verify", "--coded", bg])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "Error: \(bg): no frame carries a frame code (not a `lockstep testsrc` movie, or its code was destroyed)\n")
    }

    func testACodedClipInsideOtherFootageReportsItsSpan() throws {
        // 2 s of other footage, frames 0-89 of the coded source, 1 s of other footage.
        let out = scratch.appendingPathComponent("inside.mp4").path
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(Self.size):r=30:d=2", "-i", try src(),
                "-f", "lavfi", "-i", "testsrc2=s=\(Self.size):r=30:d=1",
                "-filter_complex", "[1:v]trim=end_frame=90,setpts=PTS-STARTPTS[c];[0:v][c][2:v]concat=n=3:v=1:a=0[v]",
                "-map", "[v]"
            ] + Self.h264 + [out])
        let r = try verify(out)
        XCTAssertEqual(r.doc["codedSpan"] as? [Int], [60, 149], "\(r.doc)")
        XCTAssertEqual(r.doc["firstCode"] as? Int, 0)
        XCTAssertEqual(r.doc["lastCode"] as? Int, 89)
        XCTAssertEqual(runs(r.doc, "missing").count, 0)
    }

    func testTestsrcIsDeterministicWithFFV1AndExact() throws {
        let a = scratch.appendingPathComponent("a.mov").path, b = scratch.appendingPathComponent("b.mov").path
        for p in [a, b] {
            let r = try Processes.lockstep(["testsrc", "-o", p, "--duration", "1", "--size", "320x180", "--codec", "ffv1", "--fps", "30000/1001", "--audio-rate", "44100", "--channels", "1"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)))
        // ffprobe, independently: 30 frames at k * 1001/30000, 44100 * 30 * 1001 / 30000 samples rounded.
        let pts = String(decoding: try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", a]), as: UTF8.self)
            .split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(pts.count, 30)
        for (k, t) in pts.enumerated() { XCTAssertEqual(t, Double(k) * 1001 / 30000, accuracy: 0.000001) }
        let pcm = try Processes.check("ffmpeg", ["-v", "error", "-i", a, "-map", "0:a", "-f", "s16le", "-"])
        XCTAssertEqual(pcm.count / 2, 44144)
        let r = try verify(a)
        XCTAssertEqual(r.status, 0, "\(r.doc)")
    }

    func testBadOptionsAreSentences() throws {
        let r = try Processes.lockstep(["testsrc", "-o", scratch.appendingPathComponent("x.mp4").path, "--codec", "ffv1"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("x.mp4: --codec ffv1 needs a .mov or .mkv file."), r.stderr)
        let nowhere = try Processes.lockstep(["testsrc", "-o", "/nonexistent/x.mkv"])
        XCTAssertEqual(nowhere.status, 64)
        XCTAssertTrue(nowhere.stderr.hasPrefix("Error: /nonexistent/x.mkv: the folder /nonexistent does not exist.\n"), nowhere.stderr)
        let v = try Processes.lockstep(["verify", "--input", "1", Repository.fixture("bg.mp4")])
        XCTAssertEqual(v.status, 64)
        XCTAssertTrue(v.stderr.contains("--input needs --coded."), v.stderr)
        XCTAssertEqual(try leftovers(), [])
    }

}
