import Foundation
import Synchronization
import TestSupport
import XCTest

/// Issue 10's "Must hold" list on a second synthetic camera, made by
/// scripts/fixtures/make-synthetic-camera-2: written independently of scripts/fixtures/make-synthetic-camera and of
/// Lockstep's calibration code, with another texture (a drawn landscape panorama), another IMU
/// axis convention (a landscape phone: camera = [[0,1,0],[1,0,0],[0,0,-1]] * imu) and a gyro log
/// that starts 1 s before the video. Every check runs `lockstep calibrate VIDEO --imu TRACE -o
/// OUT.json` with nothing else, then `lockstep snake ... --calibration OUT.json --report R.csv`, and
/// compares with the generator's truth.json through CONTRACT-calibrate.md's fields and messages.
///
/// Tolerances (from the issue): offset at the clip's start, middle and end within 1 ms; drift
/// within 20 ppm; bias within 10%: the error vector's length within 10% of the true bias's
/// (|b| = 0.026 rad/s, so 0.0026 rad/s; judging the small z component against its own size would
/// ask for 0.0008 rad/s, about one standard error of the mean of noise10x's 0.03 rad/s noise over
/// its still seconds); a confidence of 0.7 or more (the scale's "trust it") and no "low
/// confidence" warning on every right answer, while a wrong trace or wrong axes score under 0.3
/// or are refused (testZWrongTraceOrAxes...); the focal length within
/// 5%; at least 99% of frames (90% for the jump, 1 s around it excluded) paired within a quarter
/// of the nominal frame interval of the truth's IMU time. Of the axis mapping only the camera x and
/// y rows are checked: a roll about the optical axis does not move the picture as a whole, so a
/// global-shift estimator cannot see the z row (it is printed, not judged), except where the
/// trace's own orientation line gives all three rows.
///
/// Cost: the generator makes all 13 variants once per run (class-wide, 2 processes); only the
/// drift variants, jitter and stillhalf are 60 s long (the others 24 s, 20 s and 12 s: see the
/// generator's `variants()`); the calibrate + snake runs of the next variant start in the
/// background while a test checks the current one, so two run at once.
class IndependentCameraTestCase: XCTestCase {
    static let root = CommandLineTests.root

    /// Every variant, in the order their tests run (XCTest sorts test names: testNoStill before
    /// testNoise10x), so the run started ahead is the next one needed. The default tier
    /// (IndependentCameraTests) renders two of them; IndependentCameraSlowTests the rest.
    static let defaultVariants = ["base", "orient"]
    static let slowVariants = [
        "drift1000", "drift200", "gyro1khz", "gyro50hz", "jitter", "jump50",
        "nostill", "noise10x", "offset2500", "stillhalf", "vfr25"
    ]
    /// This class's variants (made once per test process, in one run of the generator).
    class var variants: [String] { defaultVariants }
    static func group(of variant: String) -> [String] { defaultVariants.contains(variant) ? defaultVariants : slowVariants }

    // MARK: fixtures, made once per test run

    struct Generated: Sendable { var dir: URL; var seconds: Double; var log: String }

    /// LOCKSTEP_SYNTHCAM2_DIR: a folder the generator already filled (`--variant all --out DIR`),
    /// used as it is and kept; otherwise the fixtures are made in a temporary folder, removed at the end.
    static let reused = ProcessInfo.processInfo.environment["LOCKSTEP_SYNTHCAM2_DIR"].map { URL(fileURLWithPath: $0) }

    /// The generated fixtures of each group of variants, by the group's first variant.
    static let made = Mutex<[String: Result<Generated, GenerationFailed>]>([:])

    static func generated(_ variants: [String]) -> Result<Generated, GenerationFailed> {
        if let done = made.withLock({ $0[variants[0]] }) { return done }
        let result = generate(variants)
        made.withLock { $0[variants[0]] = result }
        return result
    }

    static func generate(_ variants: [String]) -> Result<Generated, GenerationFailed> {
        if let dir = reused {
            let missing = variants.filter { !FileManager.default.fileExists(atPath: dir.appendingPathComponent("\($0)/truth.json").path) }
            return missing.isEmpty
                ? .success(Generated(dir: dir, seconds: 0, log: "reused"))
                : .failure(GenerationFailed(message: "LOCKSTEP_SYNTHCAM2_DIR=\(dir.path) lacks \(missing.joined(separator: ", "))"))
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-synthcam2-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let r = try runCommand(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", root.appendingPathComponent("scripts/fixtures/make-synthetic-camera-2").path,
                    "--variant", variants.joined(separator: ","), "--jobs", "2", "--out", dir.path
                ],
                timeout: 1200, scratch: dir)
            guard r.status == 0 else { return .failure(GenerationFailed(message: "make-synthetic-camera-2 exited \(r.status): \(r.stderr)")) }
            print("\(self): generated \(variants.count) variants in \(String(format: "%.1f", r.seconds)) s\n\(r.stdout)")
            return .success(Generated(dir: dir, seconds: r.seconds, log: r.stdout))
        } catch {
            return .failure(GenerationFailed(message: "make-synthetic-camera-2 could not run: \(error)"))
        }
    }
    struct GenerationFailed: Error, Sendable { var message: String }

    func fixtures() throws -> URL {
        switch Self.generated(Self.variants) {
        case .success(let g): return g.dir
        case .failure(let e): XCTFail(e.message); throw e
        }
    }

    override class func setUp() {
        super.setUp()
        _ = generated(variants)
    }

    override class func tearDown() {
        // Wait for runs started ahead (nothing left running), then remove the fixtures.
        for v in variants { if let job = runs[v], job.wasStarted { _ = job.wait() } }
        if case .success(let g) = generated(variants), reused == nil { try? FileManager.default.removeItem(at: g.dir) }
        super.tearDown()
    }

    // MARK: the runs: calibrate with nothing else, then snake with the profile it wrote

    struct Run: Sendable {
        var calibrate: CommandResult
        var profile: Data?
        var snake: CommandResult?
        var report: String?
        var failure: String?
    }

    static let runs: [String: OnceJob<Run>] = Dictionary(
        uniqueKeysWithValues: (defaultVariants + slowVariants).map { v in
            (v, OnceJob(label: "synthcam2-\(v)") { IndependentCameraTestCase.runVariant(v) })
        })

    static func runVariant(_ variant: String) -> Run {
        guard case .success(let g) = generated(group(of: variant)) else {
            return Run(calibrate: CommandResult(status: -1, stdout: "", stderr: "", seconds: 0, timedOut: false), failure: "no fixtures")
        }
        let dir = g.dir.appendingPathComponent(variant)
        let out = dir.appendingPathComponent("run")
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let truth = try Self.truth(dir)
            let video = dir.appendingPathComponent(truth["video"] as! String).path
            let trace = dir.appendingPathComponent(truth["trace"] as! String).path
            let profile = out.appendingPathComponent("OUT.json")
            let c = try runCommand(
                CommandLineTests.binary, ["calibrate", video, "--imu", trace, "-o", profile.path],
                timeout: 900, scratch: out)
            var run = Run(calibrate: c)
            guard c.status == 0 else { return run }
            run.profile = try? Data(contentsOf: profile)
            let report = out.appendingPathComponent("R.csv")
            let s = try runCommand(
                CommandLineTests.binary,
                [
                    "snake", video, "--imu", trace, "--calibration", profile.path,
                    "--report", report.path, "-o", out.appendingPathComponent("S.mp4").path
                ],
                timeout: 900, scratch: out)
            run.snake = s
            run.report = try? String(contentsOf: report, encoding: .utf8)
            try? FileManager.default.removeItem(at: out.appendingPathComponent("S.mp4"))
            return run
        } catch {
            return Run(calibrate: CommandResult(status: -1, stdout: "", stderr: "", seconds: 0, timedOut: false), failure: "\(error)")
        }
    }

    static func truth(_ dir: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("truth.json"))) as! [String: Any]
    }

    /// Which of this class's tests this process runs: swift test --filter hands the runner a
    /// comma-separated list of Class/test names; none or the class alone means all of them.
    class var selectedVariants: [String] {
        let name = "\(self)"
        let specs = CommandLine.arguments.dropFirst().flatMap { $0.split(separator: ",").map(String.init) }
        let mine = specs.filter { $0.hasPrefix("\(name)/") || $0.hasPrefix("LockstepCLITests.\(name)/") }
        if mine.isEmpty { return variants }
        let names = Set(mine.compactMap { $0.split(separator: "/").last.map { String($0).lowercased() } })
        return variants.filter { v in names.contains { $0.hasPrefix("test\(v)") } }
    }

    /// This variant's run, after starting the next selected one in the background.
    func outcome(of variant: String) throws -> (Run, [String: Any], URL) {
        let dir = try fixtures().appendingPathComponent(variant)
        let sel = Self.selectedVariants
        if let i = sel.firstIndex(of: variant), i + 1 < sel.count { Self.runs[sel[i + 1]]!.start() }
        let r = Self.runs[variant]!.wait()
        return (r, try Self.truth(dir), dir)
    }

    // MARK: the checks every variant gets

    struct Expect {
        var jumpAt: Double? = nil
        var axisSource = "searched"
        var allRows = false
    }

    func check(_ variant: String, _ expect: Expect = Expect(), file: StaticString = #filePath, line: UInt = #line) throws {
        let (run, truthJSON, _) = try outcome(of: variant)
        if let f = run.failure { return XCTFail("\(variant): \(f)", file: file, line: line) }
        let c = run.calibrate
        var summary = ["\(variant): calibrate exit \(c.status) in \(String(format: "%.1f", c.seconds)) s"]
        defer { print(summary.joined(separator: "\n  ")) }
        guard c.status == 0, let data = run.profile,
            let profile = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            summary.append("stderr: \(c.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
            return XCTFail("\(variant): calibrate failed (\(c.status)\(c.timedOut ? ", timed out" : "")): \(c.stderr)", file: file, line: line)
        }
        summary.append("stdout: \(c.stdout.replacingOccurrences(of: "\n", with: " | "))")
        if !c.stderr.isEmpty { summary.append("stderr: \(c.stderr.replacingOccurrences(of: "\n", with: " | "))") }
        let truth = ClockPieces(json: truthJSON)!
        let duration = truthJSON["durationS"] as! Double
        let fps = ClockPieces.number(truthJSON["fps"])!

        // Offset at the start, middle and end (and on both sides of a jump).
        guard let found = ClockPieces(json: profile) else {
            return XCTFail("\(variant): the profile has neither clockPieces nor timeOffsetMs", file: file, line: line)
        }
        var times = [0, duration / 2, duration]
        if let j = expect.jumpAt { times += [j - 0.6, j + 0.6] }
        for v in times {
            let f = found.offsetMs(at: v), t = truth.offsetMs(at: v)
            summary.append(String(format: "offset at %.1f s: found %.2f ms, truth %.2f ms", v, f, t))
            XCTAssertLessThanOrEqual(abs(f - t), 1.0, String(format: "\(variant): offset at v = %.1f s: found %.2f ms, truth %.2f ms", v, f, t), file: file, line: line)
        }

        // Drift (the piece holding the middle of the clip), and stdout saying "ppm" when there is some.
        let trueDrift = truth.piece(at: duration / 2).driftPpm, foundDrift = found.piece(at: duration / 2).driftPpm
        summary.append(String(format: "drift: found %.1f ppm, truth %.1f ppm", foundDrift, trueDrift))
        XCTAssertLessThanOrEqual(abs(foundDrift - trueDrift), 20, "\(variant): drift found \(foundDrift) ppm, truth \(trueDrift) ppm", file: file, line: line)
        if trueDrift != 0 { XCTAssertTrue(c.stdout.contains("ppm"), "\(variant): stdout should report the drift in ppm: \(c.stdout)", file: file, line: line) }

        // Clock jumps: named with their time where there is one, never where there is none.
        let jumps = clockJumpTimes(in: c.stderr)
        if let j = expect.jumpAt {
            XCTAssertTrue(c.stderr.contains("clock jump"), "\(variant): no \"clock jump\" warning: \(c.stderr)", file: file, line: line)
            XCTAssertTrue(jumps.contains { abs($0 - j) <= 0.5 }, "\(variant): the clock jump at \(j) s should be named \"at <T> s\": \(c.stderr)", file: file, line: line)
            XCTAssertNotNil(profile["clockPieces"], "\(variant): a jump needs clockPieces in the profile", file: file, line: line)
        } else {
            XCTAssertFalse(c.stderr.contains("clock jump"), "\(variant): a clock jump was reported where there is none: \(c.stderr)", file: file, line: line)
        }

        // Bias: measured where a still interval exists, not claimed where none does.
        let trueBias = (truthJSON["gyroBias"] as! [Any]).compactMap(ClockPieces.number)
        let bias = (profile["gyroBias"] as? [Any])?.compactMap(ClockPieces.number)
        let stills = (truthJSON["stillIntervals"] as! [Any]).count
        summary.append("bias: found \(bias.map { $0.map { String(format: "%.5f", $0) }.joined(separator: ", ") } ?? "none"), truth \(trueBias)")
        if stills > 0 {
            let tolerance = 0.1 * sqrt(trueBias.reduce(0) { $0 + $1 * $1 })
            if let b = bias, b.count == 3 {
                var squares = 0.0
                for i in 0..<3 { let d: Double = b[i] - trueBias[i]; squares += d * d }
                let error = squares.squareRoot()
                summary.append(String(format: "bias error %.5f rad/s (tolerance %.5f)", error, tolerance))
                XCTAssertLessThanOrEqual(error, tolerance, "\(variant): bias found \(b), truth \(trueBias): error \(error) rad/s (tolerance \(tolerance) rad/s)", file: file, line: line)
            } else {
                XCTFail("\(variant): no gyroBias in the profile", file: file, line: line)
            }
            XCTAssertFalse(c.stderr.contains("no still interval"), "\(variant): still intervals exist: \(c.stderr)", file: file, line: line)
        } else {
            XCTAssertTrue(c.stderr.contains("no still interval"), "\(variant): the clip never stops: stderr must say \"no still interval\": \(c.stderr)", file: file, line: line)
            XCTAssertTrue(bias == nil || bias!.allSatisfy { $0 == 0 }, "\(variant): a bias was claimed with no still interval: \(bias!)", file: file, line: line)
        }

        // Axis mapping: camera x and y rows (all three where the trace says them).
        let trueM = (truthJSON["axisMapping"] as! [[Any]]).map { $0.compactMap(ClockPieces.number) }
        let m = AxisMatrix.read(profile["axisMapping"])
        summary.append(
            "axisMapping: found \(profile["axisMapping"].map { "\($0)" } ?? "none") = \(m.map(AxisMatrix.describe) ?? "?"), truth \(AxisMatrix.describe(trueM)) (\(truthJSON["axisMappingString"]!)); source \(profile["axisMappingSource"] ?? "none")"
        )
        if let m {
            let rows = expect.allRows ? 3 : 2
            for i in 0..<rows {
                XCTAssertEqual(m[i], trueM[i], "\(variant): axis mapping row \(i) (camera \(["x", "y", "z"][i])): found \(m[i]), truth \(trueM[i])", file: file, line: line)
            }
        } else {
            XCTFail("\(variant): no readable axisMapping in the profile: \(String(describing: profile["axisMapping"]))", file: file, line: line)
        }
        XCTAssertEqual(profile["axisMappingSource"] as? String, expect.axisSource, "\(variant): axisMappingSource", file: file, line: line)

        // Focal length, estimated.
        let trueF = ClockPieces.number(truthJSON["focalLengthPx"])!
        let f = ClockPieces.number(profile["focalLengthPx"])
        summary.append("focal length: found \(f.map { String(format: "%.1f", $0) } ?? "none") px (estimated: \(profile["focalLengthEstimated"] ?? "absent")), truth \(trueF)")
        XCTAssertEqual(profile["focalLengthEstimated"] as? Bool, true, "\(variant): focalLengthEstimated", file: file, line: line)
        if let f {
            XCTAssertLessThanOrEqual(abs(f - trueF) / trueF, 0.05, "\(variant): focal length \(f) px, truth \(trueF)", file: file, line: line)
        } else {
            XCTFail("\(variant): no focalLengthPx", file: file, line: line)
        }
        summary.append("confidence: \(profile["confidence"] ?? "none"); sync points: \((profile["syncPoints"] as? [Any])?.count ?? 0)")
        // A right answer must say so: "0.7 to 1: trust it" (Calibration/README.md), no warning.
        let confidence = ClockPieces.number(profile["confidence"]) ?? -1
        XCTAssertGreaterThanOrEqual(confidence, 0.7, "\(variant): a right answer's confidence", file: file, line: line)
        XCTAssertFalse(c.stderr.contains("low confidence"), "\(variant): \(c.stderr)", file: file, line: line)

        // Pairing, judged against the truth's clock.
        guard let s = run.snake else { return }
        summary.append("snake exit \(s.status) in \(String(format: "%.1f", s.seconds)) s: \(s.stdout.replacingOccurrences(of: "\n", with: " | "))")
        XCTAssertEqual(s.status, 0, "\(variant): snake failed: \(s.stderr)", file: file, line: line)
        guard let csv = run.report, let report = PairingReport(csv: csv) else {
            return XCTFail("\(variant): no report with frame, frame_time_s and imu_time_s columns: \(run.report?.prefix(200) ?? "none")", file: file, line: line)
        }
        let excluded: (Double) -> Bool = { v in expect.jumpAt.map { abs(v - $0) < 0.5 } ?? false }
        let score = report.score(truth: truth, tolerance: 0.25 / fps, excluding: excluded)
        let need = expect.jumpAt == nil ? 0.99 : 0.90
        summary.append(
            String(
                format: "pairing: %d of %d frames within 1/4 frame (%d unpaired), median error %.2f ms, worst %.2f ms",
                score.good, score.judged, score.unpaired, score.medianMs, score.worstMs))
        // One row per output frame. snake keeps the clip's timeline (issue 43): a frame the
        // camera dropped is a tick that shows the one before it, so the output has a frame for
        // every tick, kept or dropped (vfr25: 549 kept + 171 dropped = 720).
        let ticks = (truthJSON["frames"] as? Int ?? -1) + (truthJSON["framesDropped"] as? Int ?? 0)
        XCTAssertEqual(report.rows.count, ticks, "\(variant): frames in the report (the timeline's ticks)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(
            Double(score.good), need * Double(score.judged),
            "\(variant): \(score.good) of \(score.judged) frames paired within 1/4 frame (need \(Int(need * 100))%); worst \(score.worstMs) ms",
            file: file, line: line)
    }

    /// Each case (calibrate `video` with these arguments) must be refused (exit 1, no profile)
    /// or score under 0.3 with a "low confidence" warning: never a confident answer.
    func checkWrong(video: String, cases: [(name: String, args: [String])]) throws {
        let dir = try fixtures()
        let scratch = dir.appendingPathComponent("wrong")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let results = Mutex<[Int: CommandResult]>([:])
        DispatchQueue.concurrentPerform(iterations: cases.count) { i in
            let out = scratch.appendingPathComponent("OUT\(i).json")
            let r =
                (try? runCommand(CommandLineTests.binary, ["calibrate", video] + cases[i].args + ["-o", out.path], timeout: 900, scratch: scratch))
                ?? CommandResult(status: -1, stdout: "", stderr: "could not run", seconds: 0, timedOut: false)
            results.withLock { $0[i] = r }
        }
        for (i, c) in cases.enumerated() {
            let r = results.withLock { $0[i]! }
            let out = scratch.appendingPathComponent("OUT\(i).json")
            print(
                "\(c.name): exit \(r.status) in \(String(format: "%.1f", r.seconds)) s; stdout \(r.stdout.replacingOccurrences(of: "\n", with: " | ")); stderr \(r.stderr.replacingOccurrences(of: "\n", with: " | "))"
            )
            if r.status == 1 {
                XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(c.name): refused, so no profile")
                XCTAssertTrue(r.stderr.hasPrefix("Error: \(video): "), "\(c.name): \(r.stderr)")
                continue
            }
            XCTAssertEqual(r.status, 0, "\(c.name): exit 0 or 1, nothing else: \(r.stderr)")
            guard let json = (try? Data(contentsOf: out)).flatMap({ try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }),
                let confidence = ClockPieces.number(json["confidence"])
            else {
                XCTFail("\(c.name): no profile with a confidence"); continue
            }
            XCTAssertLessThan(confidence, 0.3, "\(c.name): a wrong answer's confidence")
            XCTAssertTrue(r.stderr.contains("warning: low confidence"), "\(c.name): \(r.stderr)")
        }
    }

    /// What the ffmpeg CLI sees of the fixtures: the VFR clip has its gaps, the others none, and each
    /// clip has the frame count truth.json states.
    func checkGeneratorOutput(_ variants: [String]) throws {
        let dir = try fixtures()
        for v in variants {
            let truth = try Self.truth(dir.appendingPathComponent(v))
            let r = try runCommand(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                    "-of", "csv=p=0", dir.appendingPathComponent("\(v)/cam.mp4").path
                ],
                timeout: 120, scratch: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            let pts = r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
            XCTAssertEqual(pts.count, truth["frames"] as? Int, v)
            XCTAssertEqual(pts.first, 0, v)
            let steps = zip(pts.dropFirst(), pts).map { ($0 - $1) * 30 }
            let gaps = steps.filter { $0 > 1.5 }.count
            if v == "vfr25" {
                let dropped = Double(truth["framesDropped"] as! Int) / Double(pts.count + (truth["framesDropped"] as! Int))
                XCTAssertEqual(dropped, 0.25, accuracy: 0.03, "a quarter of the frames dropped")
                XCTAssertGreaterThan(gaps, (truth["framesDropped"] as! Int) * 2 / 3, "ffprobe must show the dropped frames as gaps")
                XCTAssertTrue(steps.allSatisfy { abs($0 - $0.rounded()) < 0.01 }, "every kept frame keeps its own time")
            } else {
                XCTAssertEqual(gaps, 0, v)
            }
            // The trace starts 1 s before the video, on the IMU clock.
            let first = ClockPieces.number(truth["imuFirstTimestampS"])!
            XCTAssertEqual(first, ClockPieces(json: truth)!.imuTime(at: -1), accuracy: 1e-6, v)
        }
    }
}

/// Issue 10's checks in the default tier, on two variants: the base camera (a gcsv without an
/// orientation line, axes searched) and one whose gcsv states its orientation; the search range's
/// refusal; wrong axes; the generator's own output. IndependentCameraSlowTests runs the other 11.
final class IndependentCameraTests: IndependentCameraTestCase {
    func testBase() throws { try check("base") }
    /// A gcsv with Gyroflow's `orientation` line: the mapping comes from the trace, all three rows.
    func testOrientLineOfTheGcsvIsApplied() throws { try check("orient", Expect(axisSource: "trace", allRows: true)) }

    // MARK: the search range

    /// An offset beyond --search-ms is a failure with a sentence, never the window's edge.
    func testZOffsetOutsideTheSearchRangeFailsWithASentence() throws {
        let dir = try fixtures().appendingPathComponent("base")
        let truth = try Self.truth(dir)
        XCTAssertEqual(truth["timeOffsetMs"] as? Double, 143)
        let scratch = dir.appendingPathComponent("narrow")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let out = scratch.appendingPathComponent("OUT.json")
        let r = try runCommand(
            CommandLineTests.binary,
            [
                "calibrate", dir.appendingPathComponent("cam.mp4").path,
                "--imu", dir.appendingPathComponent("cam.gcsv").path, "--search-ms", "50", "-o", out.path
            ],
            timeout: 900, scratch: scratch)
        print("search-ms 50 on a 143 ms truth: exit \(r.status); stdout \(r.stdout.replacingOccurrences(of: "\n", with: " | ")); stderr \(r.stderr.replacingOccurrences(of: "\n", with: " | "))")
        XCTAssertEqual(r.status, 1, "exit status; stdout: \(r.stdout)")
        XCTAssertTrue(r.stderr.contains("outside the search range"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--search-ms"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "no profile may be written")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [], "nothing left behind")
        try? FileManager.default.removeItem(at: scratch)
    }

    // MARK: confidence on wrong answers

    /// The other side of the confidence scale on this camera: base's video against orient's
    /// trace (another seed's motion, its axes given so that only the motion differs), and base's own trace with the IMU's x and y axes forced the
    /// wrong way round (--axis-mapping XYZ; the truth is YXz). Each must be refused (exit 1, no
    /// profile) or score under 0.3 with a "low confidence" warning: never a confident answer.
    func testZWrongTraceOrAxesScoreUnder0Point3OrAreRefused() throws {
        let dir = try fixtures()
        try checkWrong(
            video: dir.appendingPathComponent("base/cam.mp4").path,
            cases: [
                ("another camera's trace", ["--imu", dir.appendingPathComponent("orient/cam.gcsv").path, "--axis-mapping", "YXz"]),
                ("x and y swapped", ["--imu", dir.appendingPathComponent("base/cam.gcsv").path, "--axis-mapping", "XYZ"])
            ])
    }

    // MARK: the generator's own output

    /// What the ffmpeg CLI sees of the base clip: no gaps, the frame count truth.json states.
    func testGeneratorOutputMatchesItsTruth() throws { try checkGeneratorOutput(["base"]) }
}

/// The other 11 variants of the second synthetic camera (drift, jumps, gyro rates, noise, no
/// still, VFR, jitter, a large offset, a still half), 24-60 s each: slow tier (scripts/test --all).
final class IndependentCameraSlowTests: IndependentCameraTestCase {
    override class var variants: [String] { slowVariants }

    func testDrift200() throws { try check("drift200") }
    func testDrift1000() throws { try check("drift1000") }
    func testGyro1kHz() throws { try check("gyro1khz") }
    func testGyro50Hz() throws { try check("gyro50hz") }
    func testJitter() throws { try check("jitter") }
    func testJump50() throws { try check("jump50", Expect(jumpAt: 4.0)) }
    func testNoise10x() throws { try check("noise10x") }
    func testNoStill() throws { try check("nostill") }
    func testOffset2500() throws { try check("offset2500") }
    func testStillHalf() throws { try check("stillhalf") }
    func testVFR25() throws { try check("vfr25") }

    /// The generator's VFR and clock-jump clips, as ffprobe sees them.
    func testGeneratorOutputMatchesItsTruth() throws { try checkGeneratorOutput(["vfr25", "jump50"]) }

    /// Base's video (default-tier fixtures) against nostill's trace: refused or under 0.3.
    func testZAnotherCamerasTraceScoresUnder0Point3OrIsRefused() throws {
        let base = try XCTUnwrap(try? IndependentCameraTestCase.generated(IndependentCameraTestCase.defaultVariants).get()).dir
        try checkWrong(
            video: base.appendingPathComponent("base/cam.mp4").path,
            cases: [("another camera's trace", ["--imu", try fixtures().appendingPathComponent("nostill/cam.gcsv").path])])
    }
}

/// The helpers IndependentCameraTests reads the contract with, without I/O (and without the
/// fixtures, so this runs in a moment).
final class IndependentCameraHelperTests: XCTestCase {
    func testHelpersReadTheContractsSpellings() {
        XCTAssertEqual(AxisMatrix.fromString("XYZ"), [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        XCTAssertEqual(AxisMatrix.fromString("YXz"), [[0, 1, 0], [1, 0, 0], [0, 0, -1]])
        // Calibration/README.md's example: "xzY": camera x = -imu x, camera y = -imu z, camera z = imu y.
        XCTAssertEqual(AxisMatrix.fromString("xzY"), [[-1, 0, 0], [0, 0, -1], [0, 1, 0]])
        XCTAssertNil(AxisMatrix.fromString("XYW"))
        XCTAssertEqual(AxisMatrix.read([[0, 1, 0], [1, 0, 0], [0, 0, -1]]), [[0, 1, 0], [1, 0, 0], [0, 0, -1]])
        // Gyroflow's "xyZ" for our landscape phone is our "YXz".
        XCTAssertEqual(AxisMatrix.fromGyroflowOrientation("xyZ"), AxisMatrix.fromString("YXz"))
        // The gcsv docs' figure: "YxZ" is an IMU with x right, y up, z out of the back, so
        // camera (right, down, forward) = (imu x, -imu y, -imu z).
        XCTAssertEqual(AxisMatrix.fromGyroflowOrientation("YxZ"), [[1, 0, 0], [0, -1, 0], [0, 0, -1]])

        let clock = ClockPieces(json: [
            "clockPieces": [
                ["fromVideoS": 4.0, "offsetMs": 93, "driftPpm": 0],
                ["fromVideoS": 0.0, "offsetMs": 143.0, "driftPpm": 0]
            ]
        ])!
        XCTAssertEqual(clock.offsetMs(at: -1), 143)
        XCTAssertEqual(clock.offsetMs(at: 3.99), 143)
        XCTAssertEqual(clock.offsetMs(at: 4), 93)
        let drift = ClockPieces(json: ["timeOffsetMs": 10.0, "clockDriftPpm": 1000.0])!
        XCTAssertEqual(drift.offsetMs(at: 60), 70, accuracy: 1e-9)
        XCTAssertEqual(drift.imuTime(at: 60), 59.93, accuracy: 1e-9)
        XCTAssertNil(ClockPieces(json: ["name": "x"]))

        let report = PairingReport(
            csv:
                "frame,frame_time_s,motion_time_s,distance_ms,paired,video_dx,video_dy,gyro_dx,gyro_dy,imu_time_s\n0,0.0,0.0,0,1,0,0,0,0,-0.143\n1,0.0333,,,0,,,,,\n2,0.0667,0.0667,0,1,0,0,0,0,-0.050\n"
        )!
        let s = report.score(truth: ClockPieces(pieces: [.init(fromVideoS: 0, offsetMs: 143, driftPpm: 0)]), tolerance: 0.25 / 30)
        XCTAssertEqual(s.judged, 3)
        XCTAssertEqual(s.good, 1)
        XCTAssertEqual(s.unpaired, 1)
        XCTAssertNil(PairingReport(csv: "frame,frame_time_s\n0,0\n"), "no imu_time_s column")

        XCTAssertEqual(clockJumpTimes(in: "warning: clock jump of +50.0 ms at 4.02 s (video time)\nother\n"), [4.02])
        XCTAssertEqual(clockJumpTimes(in: "no jump here\n"), [])
    }
}

/// Relative shifts on real footage (issue 10): the GoPro HERO5 clip karma.mp4 (GPMF gyro inside),
/// its trace exported to CSV, that trace's clock moved by D ms (every t_ns lowered by D ms, so
/// video time = IMU time + offset gives an offset D ms larger), and each version calibrated with
/// nothing else: the offset found must move by exactly D (within 1 ms), at the clip's start and
/// middle. Needs `lockstep imu export MOVIE` (the telemetry reader) to work.
/// The default tier moves the clock by -250 ms (back, not a whole number of frames) and 1500 ms
/// (forward, more than a second); `RealFootageShiftSlowTests` adds 100 and 333 ms. Each shift is
/// one more calibrate of the whole clip (about 2.3 CPU-seconds).
class RealFootageShiftCase: XCTestCase {
    class var shifts: [Double] { [-250, 1500] }

    static var karma: URL? {
        let url = URL(fileURLWithPath: Repository.shared("karma.mp4"))
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    func checkShifts() throws {
        // CI has ../shared beside the checkout: a missing file is a failure, never a silent skip.
        guard let karma = Self.karma else { return XCTFail("karma.mp4 is not beside the checkout (../shared/media/karma.mp4)") }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-shift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let exported = scratch.appendingPathComponent("karma.csv")
        let e = try runCommand(CommandLineTests.binary, ["imu", "export", karma.path, "-o", exported.path], timeout: 300, scratch: scratch)
        guard e.status == 0, let csv = try? String(contentsOf: exported, encoding: .utf8) else {
            return XCTFail("lockstep imu export \(karma.lastPathComponent) failed (\(e.status)): \(e.stderr)")
        }
        // Every line that starts with an integer is a sample; anything else (a header) is kept as it is.
        let lines = csv.split(separator: "\n").map(String.init)
        let samples = lines.filter { Int64($0.split(separator: ",").first ?? "") != nil }.count
        XCTAssertGreaterThan(samples, 1000, "the exported trace should hold the clip's gyro")
        var traces = [exported]
        for d in Self.shifts {
            let url = scratch.appendingPathComponent("karma\(Int(d)).csv")
            let shifted = lines.map { line -> String in
                let cells = line.split(separator: ",", omittingEmptySubsequences: false)
                guard let t = Int64(cells.first ?? "") else { return line }
                return ([String(t - Int64(d * 1_000_000))] + cells.dropFirst().map(String.init)).joined(separator: ",")
            }
            try (shifted.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            traces.append(url)
        }

        // The calibrations, two at a time: the exported trace, each shifted one, and the camera file as its own trace.
        let results = Mutex<[Int: CommandResult]>([:])
        let imu = traces.map(\.path) + [karma.path]
        DispatchQueue.concurrentPerform(iterations: imu.count) { i in
            let out = scratch.appendingPathComponent("profile\(i).json")
            let r =
                (try? runCommand(
                    CommandLineTests.binary, ["calibrate", karma.path, "--imu", imu[i], "-o", out.path],
                    timeout: 900, scratch: scratch))
                ?? CommandResult(status: -1, stdout: "", stderr: "could not run", seconds: 0, timedOut: false)
            results.withLock { $0[i] = r }
        }
        func offsets(_ i: Int) -> (Double, Double)? {
            let r = results.withLock { $0[i]! }
            guard r.status == 0,
                let data = try? Data(contentsOf: scratch.appendingPathComponent("profile\(i).json")),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let clock = ClockPieces(json: json)
            else {
                XCTFail("calibrate \(traces[i].lastPathComponent) failed (\(r.status)): \(r.stderr)")
                return nil
            }
            return (clock.offsetMs(at: 0), clock.offsetMs(at: 6))
        }
        guard let base = offsets(0) else { return }
        print(String(format: "karma.mp4, exported trace: offset %.2f ms at 0 s, %.2f ms at 6 s", base.0, base.1))
        // `calibrate karma.mp4 --imu karma.mp4`: karma.mp4 hovers still until its last 0.6 s, so
        // one sync point carries the answer. That is "check it" on the confidence scale (0.3 to
        // 0.7), said with its reason, not "wrong". (The exported CSV has no stated axes: the
        // searched orientation's runner-up comes close on one burst of motion, and it scores 0.42.)
        let own = imu.count - 1
        let first = results.withLock { $0[own]! }
        if first.status == 0, let data = try? Data(contentsOf: scratch.appendingPathComponent("profile\(own).json")),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let confidence = ClockPieces.number(json["confidence"])
        {
            print("karma.mp4 confidence \(confidence); stderr: \(first.stderr.replacingOccurrences(of: "\n", with: " | "))")
            XCTAssertGreaterThanOrEqual(confidence, 0.5, "one strong sync point is not a wrong answer")
            XCTAssertLessThanOrEqual(confidence, 0.6, "one sync point cannot be trusted without a check")
            XCTAssertTrue(first.stderr.contains("only 1 sync point could be used"), first.stderr)
            XCTAssertFalse(first.stderr.contains("low confidence"), first.stderr)
            if let c = ClockPieces(json: json) { XCTAssertEqual(c.offsetMs(at: 0), base.0, accuracy: 1, "the camera file's own trace and its export agree") }
        } else {
            XCTFail("calibrate karma.mp4 --imu karma.mp4 failed (\(first.status)) or wrote no confidence: \(first.stderr)")
        }
        for (k, d) in Self.shifts.enumerated() {
            guard let o = offsets(k + 1) else { continue }
            print(String(format: "karma.mp4, trace moved by %+.0f ms: offset moved %+.2f ms at 0 s, %+.2f ms at 6 s", d, o.0 - base.0, o.1 - base.1))
            XCTAssertEqual(o.0 - base.0, d, accuracy: 1, "trace moved by \(d) ms: offset at 0 s moved \(o.0 - base.0) ms")
            XCTAssertEqual(o.1 - base.1, d, accuracy: 1, "trace moved by \(d) ms: offset at 6 s moved \(o.1 - base.1) ms")
        }
    }

}

final class RealFootageShiftTests: RealFootageShiftCase {
    func testShiftingTheTraceClockMovesTheOffsetByExactlyThatMuch() throws { try checkShifts() }

    /// `lockstep snake karma.mp4 --imu karma.mp4 -o out.mp4` with nothing else: the GoPro file's
    /// own telemetry (its stated axes, on the video's clock) drives the snake; every frame is in
    /// the report and every frame whose motion window the trace covers is paired.
    func testSnakeRunsOnTheGoProFileWithNothingElse() throws {
        guard let karma = Self.karma else { return XCTFail("karma.mp4 is not beside the checkout (../shared/media/karma.mp4)") }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-karma-snake-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("snake.mp4"), report = scratch.appendingPathComponent("r.csv")
        let r = try runCommand(
            CommandLineTests.binary, ["snake", karma.path, "--imu", karma.path, "--report", report.path, "-o", out.path],
            timeout: 900, scratch: scratch)
        print(
            "snake karma.mp4 --imu karma.mp4: exit \(r.status) in \(String(format: "%.1f", r.seconds)) s; \(r.stdout.replacingOccurrences(of: "\n", with: " | ")) \(r.stderr.replacingOccurrences(of: "\n", with: " | "))"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.path))
        let rows = try String(contentsOf: report, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        // ffprobe, an outside reader, counts the clip's frames.
        let p = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", karma.path
            ],
            timeout: 120, scratch: scratch)
        let frames = Int(p.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").first ?? "") ?? -1
        XCTAssertEqual(rows.count, frames, "one report row per frame")
        let paired = rows.filter { $0.count > 4 && $0[4] == "1" }.count
        // The GPMF gyro starts 11.5 ms after the first frame and ends with the file: the first
        // frame's window (+-8.3 ms) is not covered; every other frame is.
        XCTAssertGreaterThanOrEqual(paired, frames - 1, "frames paired")
        XCTAssertTrue(r.stdout.contains("motion: \(paired) frames paired, \(frames - paired) without"), r.stdout)
    }
}

/// Every shift of the trace's clock (the default tier's -250 and 1500 ms, and 100 and 333 ms):
/// the same check as `RealFootageShiftTests.testShiftingTheTraceClockMovesTheOffsetByExactlyThatMuch`
/// with two more calibrations.
final class RealFootageShiftSlowTests: RealFootageShiftCase {
    override class var shifts: [Double] { [-250, 100, 333, 1500] }

    func testEveryShift() throws { try checkShifts() }
}
