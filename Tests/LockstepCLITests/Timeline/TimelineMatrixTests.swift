import Foundation
import TestSupport
import XCTest

/// Issue 43's "Done when" matrix: every frame-producing command keeps each input's timeline.
/// Each command runs (the built `lockstep`) on clips with white flashes and beeps at known
/// times (scripts/fixtures/make-event-clips: numpy and the ffmpeg CLI, sharing nothing with
/// scripts/fixtures/make-fixtures or the product's SyncCode), and scripts/tools/check-event-sync (ffmpeg and
/// ffprobe, never Lockstep) finds every flash and beep in the output. A right output has every
/// event where the input's timeline puts it (to one output frame), each flash within one frame
/// of its beep, the length of its input's timeline (to one output frame), and `verify` exits 0
/// on it; a broken one (sound shifted 3 frames, frames dropped) makes `verify` exit 1.
class TimelineMatrixCase: XCTestCase {
    /// One clip as scripts/fixtures/make-event-clips describes it (events.json).
    struct Clip: Decodable {
        var name: String
        var file: String
        /// The events' times (seconds): each flash's first frame and each beep's first sample.
        var events: [Double]
        /// When each flash leaves the screen (the next frame's time): where a reversal's starts.
        var flashEnds: [Double]
        var seconds: Double
    }

    /// What scripts/tools/check-event-sync found in an output.
    struct Found: Decodable {
        struct Video: Decodable { var frames: Int; var duration: Double; var step: Double }
        struct Event: Decodable { var flash: Double; var beep: Double; var offset: Double }
        var video: Video
        var flashes: [Double]
        var beeps: [Double]
        var events: [Event]
    }

    /// Where a right output's events are and how long it lasts, given its frame step (cuts
    /// count in output frames).
    struct Expectation {
        var events: [Double]
        var length: Double
    }

    /// Makes the event clips into `dir` (4 s, 128x96).
    static func makeClips(into dir: URL) throws -> [String: Clip] {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Processes.check(Repository.script("make-event-clips"), [dir.path])
        let data = try Data(contentsOf: dir.appendingPathComponent("events.json"))
        return try JSONDecoder().decode([String: Clip].self, from: data)
    }

    /// A still gyro trace (plain CSV, ns and rad/s, 200 Hz) covering `seconds` and half a second
    /// on either side: what `snake` follows.
    static func stillTrace(_ path: URL, seconds: Double) throws {
        var text = "t_ns,gx,gy,gz\n"
        for i in -100..<Int((seconds + 0.5) * 200) {
            text += "\(i * 5_000_000),0.001,-0.002,0.0005\n"
        }
        try text.write(to: path, atomically: true, encoding: .utf8)
    }

    /// Where the clip's last shown frame starts (ffprobe's decoded frames, an edit list applied):
    /// a boomerang turns there. Not the largest packet pts: a packet the edit list hides is never
    /// on screen (sample_edit_list.mp4's last packet is at 2.602 s, past the list's end at 2.548
    /// s; its last shown frame starts at 2.535 s).
    static func lastFrameStart(_ path: String) throws -> Double {
        let out = try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        let times = String(decoding: out, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0.split(separator: ",").first ?? "") }
        return try XCTUnwrap(times.max(), "\(path): no frame times")
    }

    /// Events of a clip that lie wholly inside [from, to) (flash and beep), times from `from`.
    static func inside(_ c: Clip, from: Double, to: Double) -> [(start: Double, end: Double)] {
        zip(c.events, c.flashEnds).filter { $0.0 >= from - 0.0005 && $0.1 <= to + 0.001 }.map { ($0.0, $0.1) }
    }

    /// What check-event-sync found in outputs already read by `prefetch`, by path.
    nonisolated(unsafe) static var foundByPath: [String: Found] = [:]

    func found(_ movie: String) throws -> Found {
        if let f = Self.foundByPath[movie] { return f }
        let data = try Processes.check(Repository.script("check-event-sync"), [movie])
        return try JSONDecoder().decode(Found.self, from: data)
    }

    /// Reads `movies` with one check-event-sync run (one Python and numpy start, about 0.6
    /// CPU-seconds, instead of one a movie; each movie is still read on its own): `found` then
    /// answers from its document. A movie it could not read gets none, and `found` runs the
    /// checker on it alone, whose error the test then shows.
    func prefetch(_ movies: [String]) throws {
        let wanted = movies.filter { Self.foundByPath[$0] == nil }
        guard !wanted.isEmpty else { return }
        let r = try Processes.run(Repository.script("check-event-sync"), wanted, timeout: 600)
        struct File: Decodable { var file: String }
        for line in String(decoding: r.stdout, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let data = Data(line.utf8)
            if let f = try? JSONDecoder().decode(Found.self, from: data), let name = try? JSONDecoder().decode(File.self, from: data).file {
                Self.foundByPath[name] = f
            }
        }
    }

    /// Judges an output already written: the events where `expect` puts them, each flash with
    /// its beep, the length, `verify` exit 0. Failures name the row.
    func judge(_ name: String, output: String, expect: (Double) -> Expectation) throws {
        let f = try found(output)
        let step = f.video.step
        let e = expect(step)
        let frame = step + 0.002  // one output frame, and the beep's onset found to a millisecond or two
        XCTAssertEqual(f.video.duration, e.length, accuracy: step + 0.001, "\(name): the output lasts \(f.video.duration) s, its input's timeline \(e.length) s")
        XCTAssertEqual(f.flashes.count, e.events.count, "\(name): flashes at \(f.flashes), expected at \(e.events)")
        XCTAssertEqual(f.beeps.count, e.events.count, "\(name): beeps at \(f.beeps), expected at \(e.events)")
        for (t, want) in zip(f.flashes, e.events) where abs(t - want) > frame {
            XCTFail("\(name): a flash at \(ms(t)), expected at \(ms(want)) (\(ms(t - want)) off; one frame is \(ms(step)))")
        }
        for (t, want) in zip(f.beeps, e.events) where abs(t - want) > 0.005 {
            XCTFail("\(name): a beep at \(ms(t)), expected at \(ms(want))")
        }
        for ev in f.events where abs(ev.offset) > frame {
            XCTFail("\(name): the flash at \(ms(ev.flash)) is \(ms(ev.offset)) from its beep at \(ms(ev.beep)) (one frame is \(ms(step)))")
        }
        let verify = try Processes.lockstep(["verify", output])
        XCTAssertEqual(verify.status, 0, "\(name): verify says \(verify.stdout)\(verify.stderr)")
    }

    func ms(_ s: Double) -> String { String(format: "%.1f ms", s * 1000) }

    /// Commands already run (by `EventMatrixCase.prepare`), by their arguments.
    nonisolated(unsafe) static var ran: [[String]: (status: Int32, stdout: String, stderr: String)] = [:]
}

/// The event clips and the seven commands, made once per class.
class EventMatrixCase: TimelineMatrixCase {
    static let clipNames = ["const30", "drop30", "vfr", "r25", "r60", "fade"]
    nonisolated(unsafe) static var made: [String: (dir: URL, clips: [String: Clip])] = [:]

    func clips() throws -> (dir: URL, clips: [String: Clip]) {
        let key = "\(type(of: self))"
        if let m = Self.made[key] { return m }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-timeline-\(UUID().uuidString)")
        let clips = try Self.makeClips(into: dir.appendingPathComponent("clips"))
        try Self.stillTrace(dir.appendingPathComponent("still.csv"), seconds: 5)
        Self.made[key] = (dir, clips)
        return (dir, clips)
    }
    override class func tearDown() {
        if let d = made["\(self)"]?.dir { try? FileManager.default.removeItem(at: d) }
        made["\(self)"] = nil
        ran = [:]
        foundByPath = [:]
        prepared = false
    }

    nonisolated(unsafe) static var prepared = false

    /// Runs the commands of `rows` (command, clip) once, then reads every output they wrote with
    /// one check-event-sync run; each row's test then judges its own output from those (its
    /// command's exit and message, the checker's document, and its own `verify`).
    func prepare(_ rows: [(String, String)]) throws {
        guard !Self.prepared else { return }
        Self.prepared = true
        var outputs: [String] = []
        for (command, name) in rows {
            let planned = try plan(command, name)
            let run = try Processes.lockstep(planned.args)
            Self.ran[planned.args] = run
            if run.status == 0 { outputs += planned.outputs }
        }
        try prefetch(outputs)
    }

    /// Runs one command on one clip and judges the output. The commands:
    /// filter (--filter none, mono), snake (a still trace, the front picture at full size: the
    /// flash fills the frame whatever the trail does; the row judges the snake's timing, not its
    /// look), reverse (a flash starts where it used to leave the screen, counted from the end),
    /// cut (output frames 15-89 of `filter --filter none`: the events inside, 15 frames
    /// earlier; cut-time the same by --from 0.5 --to 3), concat (the clip then const30: the
    /// second's events after the first's length), composite (--blend mix with const30, events at
    /// the same times: their common span); and the cuts and turns every command now takes:
    /// boomerang (forward, then back from where the last frame starts), reverse-cut (--from 0.5
    /// --to 3 cut from the source, then reversed), concat-cut (the joined timeline from 2 s to
    /// 6 s), variants-cut (`filter --variants none;mono --from 0.5 --to 3`, the `none` file).
    func matrixRow(_ command: String, _ name: String) throws {
        let p = try plan(command, name)
        let label = "\(command) × \(name)"
        let run = try Self.ran[p.args] ?? Processes.lockstep(p.args)
        guard run.status == 0 else { return XCTFail("\(label): lockstep \(p.args.joined(separator: " ")) exited \(run.status): \(run.stderr)") }
        for (output, expect) in zip(p.outputs, p.expectations) {
            try judge(p.outputs.count > 1 ? "\(label) (\(URL(fileURLWithPath: output).lastPathComponent))" : label, output: output, expect: expect)
        }
    }

    /// One row's command (its arguments, -o included), the outputs it writes and where each
    /// one's events must be.
    struct Plan {
        var args: [String]
        var outputs: [String]
        var expectations: [(Double) -> Expectation]
    }

    func plan(_ command: String, _ name: String) throws -> Plan {
        let (dir, clips) = try clips()
        let c = try XCTUnwrap(clips[name]), second = try XCTUnwrap(clips["const30"])
        let out = dir.appendingPathComponent("\(command)-\(name).mp4").path
        let calibration = Repository.root.appendingPathComponent("Calibration/generic.json").path
        let same = Expectation(events: c.events, length: c.seconds)
        let args: [String]
        let expect: (Double) -> Expectation
        switch command {
        case "filter-none": (args, expect) = (["filter", c.file, "--filter", "none"], { _ in same })
        case "filter-mono": (args, expect) = (["filter", c.file, "--filter", "mono"], { _ in same })
        case "snake":
            let trace = dir.appendingPathComponent("still.csv").path
            (args, expect) = (["snake", c.file, "--imu", trace, "--calibration", calibration, "--front-scale", "1"], { _ in same })
        case "reverse":
            (args, expect) = (["reverse", c.file], { _ in Expectation(events: c.flashEnds.map { c.seconds - $0 }.reversed(), length: c.seconds) })
        case "cut":
            (args, expect) = (
                ["filter", c.file, "--filter", "none", "--frames", "15:90"],
                { step in
                    let from = 15 * step, to = 90 * step
                    return Expectation(events: zip(c.events, c.flashEnds).filter { $0.0 >= from && $0.1 <= to + 0.001 }.map { $0.0 - from }, length: 75 * step)
                }
            )
        case "cut-time":
            (args, expect) = (
                ["filter", c.file, "--filter", "none", "--from", "0.5", "--to", "3"],
                { step in
                    let from = (0.5 / step).rounded() * step, to = (3 / step).rounded() * step
                    return Expectation(events: zip(c.events, c.flashEnds).filter { $0.0 >= from && $0.1 <= to + 0.001 }.map { $0.0 - from }, length: to - from)
                }
            )
        case "concat":
            (args, expect) = (
                ["concat", c.file, second.file], { _ in Expectation(events: c.events + second.events.map { $0 + c.seconds }, length: c.seconds + second.seconds) }
            )
        case "boomerang":
            let top = try Self.lastFrameStart(c.file)
            (args, expect) = (
                ["reverse", "--boomerang", c.file],
                { _ in Expectation(events: c.events + c.flashEnds.reversed().map { c.seconds + top - $0 }, length: c.seconds + top) }
            )
        case "reverse-cut":
            (args, expect) = (
                ["reverse", c.file, "--from", "0.5", "--to", "3"],
                { step in
                    let from = (0.5 / step).rounded() * step, to = (3 / step).rounded() * step
                    return Expectation(events: Self.inside(c, from: from, to: to).map { to - $0.end }.reversed(), length: to - from)
                }
            )
        case "concat-cut":
            let joined = Clip(
                name: "joined", file: "", events: c.events + second.events.map { $0 + c.seconds },
                flashEnds: c.flashEnds + second.flashEnds.map { $0 + c.seconds }, seconds: c.seconds + second.seconds)
            (args, expect) = (
                ["concat", c.file, second.file, "--from", "2", "--to", "6"],
                { step in
                    let from = (2 / step).rounded() * step, to = (6 / step).rounded() * step
                    return Expectation(events: Self.inside(joined, from: from, to: to).map { $0.start - from }, length: to - from)
                }
            )
        case "variants-cut":
            let folder = dir.appendingPathComponent("variants-\(name)").path
            let expect: (Double) -> Expectation = { step in
                let from = (0.5 / step).rounded() * step, to = (3 / step).rounded() * step
                return Expectation(events: Self.inside(c, from: from, to: to).map { $0.start - from }, length: to - from)
            }
            return Plan(
                args: ["filter", c.file, "--variants", "none;mono", "--from", "0.5", "--to", "3", "-o", folder], outputs: ["none.mp4", "mono.mp4"].map { folder + "/" + $0 },
                expectations: [expect, expect])
        case "composite":
            (args, expect) = (["composite", "--blend", "mix", c.file, second.file], { _ in Expectation(events: c.events, length: min(c.seconds, second.seconds)) })
        default: throw Processes.Failure(description: "no command \(command) in the matrix")
        }
        return Plan(args: args + ["-o", out], outputs: [out], expectations: [expect])
    }
}

/// The matrix's rows that tell most (4 s clips, 128x96; the whole matrix is
/// `TimelineMatrixSlowTests`): each command on a clip with drops or a variable rate, mixed rates
/// in concat and composite, a faithful fade, and broken outputs that must fail.
final class TimelineMatrixTests: EventMatrixCase {
    /// Every row below: their commands run once, before the first test, and their outputs are
    /// read by one check-event-sync run (`prepare`); each test judges its own row.
    static let rows = [
        ("filter-none", "drop30"), ("filter-mono", "vfr"), ("snake", "drop30"), ("reverse", "vfr"), ("cut", "drop30"), ("cut-time", "vfr"),
        ("concat", "r25"), ("composite", "r60"), ("filter-none", "fade"), ("reverse", "drop30"), ("boomerang", "vfr"), ("reverse-cut", "drop30"),
        ("concat-cut", "r25"), ("variants-cut", "vfr")
    ]
    override func setUpWithError() throws {
        try super.setUpWithError()
        try prepare(Self.rows)
    }

    func testFilterNoneOnDrops() throws { try matrixRow("filter-none", "drop30") }
    func testFilterMonoOnVariableRate() throws { try matrixRow("filter-mono", "vfr") }
    func testSnakeOnDrops() throws { try matrixRow("snake", "drop30") }
    func testReverseOnVariableRate() throws { try matrixRow("reverse", "vfr") }
    func testCutOnDrops() throws { try matrixRow("cut", "drop30") }
    func testTimeCutOnVariableRate() throws { try matrixRow("cut-time", "vfr") }
    func testConcatOfMixedRates() throws { try matrixRow("concat", "r25") }
    func testCompositeOfMixedRates() throws { try matrixRow("composite", "r60") }
    func testFilterNoneOfAFade() throws { try matrixRow("filter-none", "fade") }
    func testReverseOnDrops() throws { try matrixRow("reverse", "drop30") }
    func testBoomerangOnVariableRate() throws { try matrixRow("boomerang", "vfr") }
    func testReverseCutOnDrops() throws { try matrixRow("reverse-cut", "drop30") }
    func testConcatCutOfMixedRates() throws { try matrixRow("concat-cut", "r25") }
    func testVariantsCutOnVariableRate() throws { try matrixRow("variants-cut", "vfr") }

    /// A right reversal broken with the ffmpeg CLI (its sound 3 frames late; two frames gone,
    /// the others' times kept): verify exits 1 on each, 0 on the reversal itself.
    func testBrokenReversalsFailVerify() throws {
        let (dir, clips) = try clips()
        let clip = try XCTUnwrap(clips["drop30"])
        let right = dir.appendingPathComponent("broken-reverse-source.mp4").path
        let run = try Processes.lockstep(["reverse", "--boomerang", clip.file, "-o", right])
        XCTAssertEqual(run.status, 0, run.stderr)
        let ok = try Processes.lockstep(["verify", right])
        XCTAssertEqual(ok.status, 0, "the right reversal: \(ok.stdout)")
        func broken(_ name: String, _ args: [String]) throws -> String {
            let out = dir.appendingPathComponent(name).path
            try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-y"] + args + [out])
            return out
        }
        let shifted = try broken("reverse-shifted.mp4", ["-i", right, "-itsoffset", "0.1", "-i", right, "-map", "0:v", "-map", "1:a", "-c", "copy"])
        let gap = try broken(
            "reverse-gap.mp4", ["-i", right, "-vf", "select='not(eq(n,40)+eq(n,41))'", "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "copy"])
        for path in [shifted, gap] {
            let v = try Processes.lockstep(["verify", path])
            XCTAssertEqual(v.status, 1, "verify \(path): \(v.stdout)\(v.stderr)")
        }
    }

    /// Right outputs broken with the ffmpeg CLI: verify exits 1 on each, and the outside checker
    /// sees the fault too (so neither side of the matrix passes everything).
    func testBrokenOutputsFailVerify() throws {
        let (dir, clips) = try clips()
        let clip = try XCTUnwrap(clips["const30"])
        let right = dir.appendingPathComponent("broken-source.mp4").path
        let run = try Processes.lockstep(["composite", "--blend", "mix", clip.file, clip.file, "-o", right])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try Processes.lockstep(["verify", right]).status, 0, "the right output")
        func broken(_ name: String, _ args: [String]) throws -> String {
            let out = dir.appendingPathComponent(name).path
            try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-y"] + args + [out])
            return out
        }
        // The sound 3 frames (100 ms) late, the pictures untouched (the provenance kept).
        let shifted = try broken("shifted.mp4", ["-i", right, "-itsoffset", "0.1", "-i", right, "-map", "0:v", "-map", "1:a", "-c", "copy"])
        // Frames 30 and 31 dropped, the others' times kept (a gap); re-encoded, so no provenance.
        let gap = try broken(
            "gap.mp4", ["-i", right, "-vf", "select='not(eq(n,30)+eq(n,31))'", "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "copy"])
        // 18 frames dropped and the rest played at the nominal rate (the old `filter` on a clip
        // with drops): the picture ends early and runs ahead of the sound.
        let early = try broken(
            "early.mp4",
            ["-i", right, "-vf", "select='not(between(n,57,74))',setpts=N/FRAME_RATE/TB", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "copy"])
        for path in [shifted, gap, early] {
            let v = try Processes.lockstep(["verify", path])
            XCTAssertEqual(v.status, 1, "verify \(path): \(v.stdout)\(v.stderr)")
        }
        try prefetch([shifted, gap, early])
        let s = try found(shifted)
        XCTAssertEqual(s.events.count, 4)
        for e in s.events { XCTAssertEqual(e.offset, -0.1, accuracy: 0.005, "shifted: the flash 100 ms before its beep") }
        let g = try found(gap)
        XCTAssertEqual(g.video.frames, 118)
        let x = try found(early)
        XCTAssertEqual(x.video.duration, 3.4, accuracy: 0.001, "early: 102 frames at 30 fps")
        XCTAssertEqual(x.flashes.count, 4)
        XCTAssertEqual(x.flashes.last ?? 0, clip.events.last! - 0.6, accuracy: 0.001, "early: the last flash 600 ms before its beep")
        XCTAssertEqual(x.beeps.last ?? 0, clip.events.last!, accuracy: 0.005)
    }
}

/// The whole matrix: every command on every event clip (8 by 6 rows; about 7 minutes of a debug
/// build beside other builds).
final class TimelineMatrixSlowTests: EventMatrixCase {
    func each(_ command: String) throws { for name in Self.clipNames { try matrixRow(command, name) } }
    func testFilterNone() throws { try each("filter-none") }
    func testFilterMono() throws { try each("filter-mono") }
    func testSnake() throws { try each("snake") }
    func testReverse() throws { try each("reverse") }
    func testCut() throws { try each("cut") }
    func testTimeCut() throws { try each("cut-time") }
    func testConcat() throws { try each("concat") }
    func testComposite() throws { try each("composite") }
    func testBoomerang() throws { try each("boomerang") }
    func testReverseCut() throws { try each("reverse-cut") }
    func testConcatCut() throws { try each("concat-cut") }
    func testVariantsCut() throws { try each("variants-cut") }
}

/// The matrix on the real phone clips in ../shared/media/phones (edit lists, B-frames before the
/// first I, VFR, jittery 60 fps, HDR; see its README): no flashes there, so each row judges the
/// length against the clip's own timeline (as ffprobe reads it, edit lists applied) and
/// `verify`. 4K and HDR pictures through a debug build: the slow tier.
final class TimelineMatrixPhonesSlowTests: TimelineMatrixCase {
    static let phones = ["sample_edit_list.mp4", "iibbibb_editlist_videoonly.mp4", "portrait_4k60.mp4", "hlg10-color-test.mp4"]

    /// The video stream's length as ffprobe reads it (an edit list applied).
    func timeline(_ path: String) throws -> Double {
        let out = try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "csv=p=0", path])
        // The first line: side data (rotation, Dolby Vision) adds lines of its own.
        let first = String(decoding: out, as: UTF8.self).split(whereSeparator: \.isNewline).first.map { $0.split(separator: ",").first ?? "" } ?? ""
        return try XCTUnwrap(Double(first), "\(path): ffprobe says \(String(decoding: out, as: UTF8.self))")
    }

    /// A row without events: the output's length and `verify`. What check-event-sync found in
    /// the output (nil when the command failed).
    @discardableResult
    func plainRow(_ name: String, _ args: [String], output: String, length: (Double) -> Double) throws -> Found? {
        let run = try Processes.lockstep(args)
        guard run.status == 0 else {
            XCTFail("\(name): lockstep \(args.joined(separator: " ")) exited \(run.status): \(run.stderr)")
            return nil
        }
        let f = try found(output)
        let want = length(f.video.step)
        XCTAssertEqual(f.video.duration, want, accuracy: f.video.step + 0.001, "\(name): the output lasts \(f.video.duration) s, its input's timeline \(want) s")
        let verify = try Processes.lockstep(["verify", output])
        XCTAssertEqual(verify.status, 0, "\(name): verify says \(verify.stdout)\(verify.stderr)")
        return f
    }

    func testEveryCommandOnEveryPhoneClip() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-timeline-phones-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("still.csv")
        try Self.stillTrace(trace, seconds: 14)
        let calibration = Repository.root.appendingPathComponent("Calibration/generic.json").path
        for phone in Self.phones {
            let clip = Repository.shared("phones/" + phone)
            guard FileManager.default.fileExists(atPath: clip) else { XCTFail("\(clip) is not there (../shared/media/phones)"); continue }
            let length = try timeline(clip)
            let top = try Self.lastFrameStart(clip)
            func out(_ command: String) -> String { dir.appendingPathComponent("\(command)-\(phone)").path }
            let rows: [(String, [String], (Double) -> Double)] = [
                ("filter-none", ["filter", clip, "--filter", "none"], { _ in length }),
                ("filter-mono", ["filter", clip, "--filter", "mono"], { _ in length }),
                ("snake", ["snake", clip, "--imu", trace.path, "--calibration", calibration, "--front-scale", "1"], { _ in length }),
                ("reverse", ["reverse", clip], { _ in length }),
                // Forward over the shown timeline, then back from where its last shown frame starts.
                ("boomerang", ["reverse", "--boomerang", clip], { _ in length + top }),
                ("cut", ["filter", clip, "--filter", "none", "--frames", "2:8"], { 6 * $0 }),
                ("concat", ["concat", clip, clip], { _ in 2 * length }),
                ("composite", ["composite", "--blend", "mix", clip, clip], { _ in length })
            ]
            var step: Double?
            for (command, args, want) in rows {
                let f = try plainRow("\(command) × \(phone)", args + ["-o", out(command)], output: out(command), length: want)
                if command == "filter-none" { step = f?.video.step }
            }
            // The cuts by time, on every clip: output frames a to b - 1 (0.5 s to 1.5 s widened to
            // whole frames, or the middle half of a clip shorter than 2 s: portrait_4k60 and
            // hlg10-color-test last 0.3 s), asked for a quarter of a frame inside frames a and
            // b - 1, where the cut's rule (frame floor(from x fps) to ceil(to x fps) excluded,
            // docs/timing.md) cannot tip either way. The frame step is filter-none's output's:
            // every row writes at the input's nominal rate.
            guard let step else { continue }  // filter-none failed, and said so
            let frames = Int((length / step).rounded(.down))
            let a = min(Int((0.5 / step).rounded(.down)), frames / 4), b = min(Int((1.5 / step).rounded(.up)), frames * 3 / 4)
            let cut = ["--from", String(format: "%.6f", (Double(a) + 0.25) * step), "--to", String(format: "%.6f", (Double(b) - 0.25) * step)]
            for (command, args) in [("reverse-cut", ["reverse", clip] + cut), ("concat-cut", ["concat", clip, clip] + cut)] {
                try plainRow("\(command) × \(phone)", args + ["-o", out(command)], output: out(command), length: { _ in Double(b - a) * step })
            }
        }
    }
}
