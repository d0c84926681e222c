import Foundation
import TestSupport
import XCTest

/// Report and profile paths that would replace an input or an output, and the refusals of the
/// snake's, scale-out's and filter's options (what the second pass of scripts/tools/adversarial-sweep
/// found), as the user sees them: the first line of stderr, the exit status, nothing written and
/// nothing the user had altered.
final class ReportPathAndRefusalTests: ScratchFolderTestCase {
    var pan: String { Repository.fixture("synthetic/pan.mp4") }
    var panIMU: String { Repository.fixture("synthetic/pan-imu.csv") }

    func run(_ args: [String]) throws -> (status: Int32, error: String, stderr: String) {
        let r = try Processes.lockstep(args, timeout: 120)
        return (r.status, String(r.stderr.split(separator: "\n").first ?? ""), r.stderr)
    }

    var quad: [String] {
        [
            "composite", "--blend", "quad", "--gop", "30", Repository.fixture("q0.mp4"), Repository.fixture("q1.mp4"),
            Repository.fixture("q0.mp4"), Repository.fixture("q1.mp4")
        ]
    }

    // --partition and --time went unquoted into `#SBATCH` lines: "a\n/bin/rm -rf ~" put a line
    // of its own into segment.sh, which bash runs (the dry run printed it, exit 0).
    func testSlurmPartitionAndTimeMustBeOneWord() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let p = try run(quad + ["-o", out, "--segments", "2", "--slurm", "--dry-run", "--partition", "a\n/bin/rm -rf ~"])
        XCTAssertEqual(p.status, 64)
        XCTAssertEqual(p.error, #"Error: --partition must be a Slurm partition name (letters, digits, - _ . , only), found 'a\n/bin/rm -rf ~'."#)
        let t = try run(quad + ["-o", out, "--segments", "2", "--slurm", "--dry-run", "--time", "1:00 echo"])
        XCTAssertEqual(t.status, 64)
        XCTAssertEqual(t.error, "Error: --time must be a Slurm time limit such as 2:00:00 or 1-12 (letters, digits, - _ . , : only), found '1:00 echo'.")
        XCTAssertEqual(try leftovers(), [])
    }

    // The output path went unquoted into the scripts' first comment and `#SBATCH --output`, and
    // into the manifests' first comment: a line break in it started a line of its own.
    func testScaleOutRefusesAnOutputPathWithALineBreak() throws {
        let out = scratch.appendingPathComponent("o\nx.mp4").path
        let escaped = out.replacingOccurrences(of: "\n", with: "\\n")
        for target in [["--slurm", "--dry-run"], ["--emit", "k8s"]] {
            let r = try run(quad + ["-o", out, "--segments", "2"] + target)
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stderr, "Error: -o \(escaped): a path with a line break or another control character cannot go into a job script; use another name.\n")
        }
        XCTAssertEqual(try leftovers(), [])
    }

    // A message naming a path with a line break was printed as two lines (the second half of the
    // name looked like another message).
    func testAnErrorNamingAPathWithALineBreakStaysOneLine() throws {
        let missing = scratch.appendingPathComponent("no\nsuch.mp4").path
        let r = try run(["filter", "--filter", "mono", "-o", scratch.appendingPathComponent("o.mp4").path, missing])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: " + missing.replacingOccurrences(of: "\n", with: "\\n") + ": no such file.")
        XCTAssertFalse(r.stderr.split(separator: "\n").contains { $0.hasPrefix("such.mp4") })
    }

    // --report TRACE replaced the user's trace with the CSV report (exit 0); -o TRACE.mp4 (a
    // store may have any name) was not checked against the trace.
    func testSnakeReportNeverReplacesTheTraceTheMovieOrTheOutput() throws {
        let trace = scratch.appendingPathComponent("trace.csv").path
        try FileManager.default.copyItem(atPath: panIMU, toPath: trace)
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        let out = scratch.appendingPathComponent("o.mp4").path
        let r = try run(["snake", pan, "--imu", trace, "-o", out, "--report", trace])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: --report \(trace) is also an input; write the output somewhere else.")
        let o = try run(["snake", pan, "--imu", trace, "-o", out, "--report", out])
        XCTAssertEqual(o.status, 64)
        XCTAssertEqual(o.error, "Error: --report \(out) is the output movie; write the report somewhere else.")
        let store = scratch.appendingPathComponent("store.mp4").path
        try FileManager.default.copyItem(atPath: panIMU, toPath: store)
        let s = try run(["snake", pan, "--imu", store, "-o", store])
        XCTAssertEqual(s.status, 64)
        XCTAssertEqual(s.error, "Error: \(store) is also an input; write the output somewhere else.")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trace)), before)
        XCTAssertEqual(try leftovers(), ["store.mp4", "trace.csv"])
    }

    // The same guards were only in `snake`: `composite --snake --report TRACE` (or -o TRACE)
    // still replaced the trace, and a scale-out's every segment task wrote its own rows over
    // the one --report file.
    func testCompositeSnakeReportAndScaleOutReportAreRefused() throws {
        let trace = scratch.appendingPathComponent("trace.csv").path
        try FileManager.default.copyItem(atPath: panIMU, toPath: trace)
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        let out = scratch.appendingPathComponent("o.mp4").path, report = scratch.appendingPathComponent("r.csv").path
        let composite = ["composite", "--blend", "mix", pan, pan, "--snake", "--imu", trace]
        let r = try run(composite + ["-o", out, "--report", trace])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: --report \(trace) is also an input; write the output somewhere else.")
        let store = scratch.appendingPathComponent("store.mp4").path  // a trace may have any name
        try FileManager.default.copyItem(atPath: panIMU, toPath: store)
        let o = try run(["composite", "--blend", "mix", pan, pan, "--snake", "--imu", store, "-o", store])
        XCTAssertEqual(o.status, 64)
        XCTAssertEqual(o.error, "Error: \(store) is also an input; write the output somewhere else.")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        for command in [composite, ["snake", pan, "--imu", trace]] {
            let s = try run(command + ["-o", out, "--report", report, "--segments", "2", "--emit", "k8s"])
            XCTAssertEqual(s.status, 64, command[0])
            XCTAssertEqual(s.error, "Error: --report cannot be combined with --segments: each segment task would write its own frames' report over the same file.")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trace)), before)
        XCTAssertEqual(try leftovers(), ["store.mp4", "trace.csv"])
    }

    // composite --snake --report M with --matte M: the report was checked against the movies,
    // the trace and the output, not the matte, and replaced the user's matte movie.
    func testCompositeSnakeReportNeverReplacesTheMatte() throws {
        let matte = scratch.appendingPathComponent("matte.mp4").path
        try FileManager.default.copyItem(atPath: pan, toPath: matte)
        let before = try Data(contentsOf: URL(fileURLWithPath: matte))
        let out = scratch.appendingPathComponent("o.mp4").path
        let r = try run(["composite", "--blend", "chromakey", pan, pan, "--matte", matte, "--snake", "--imu", panIMU, "-o", out, "--report", matte])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: --report \(matte) is also an input; write the output somewhere else.")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: matte)), before)
        XCTAssertEqual(try leftovers(), ["matte.mp4"])
        let o = try run(["composite", "--blend", "chromakey", pan, pan, "--matte", matte, "-o", matte, "--segments", "2", "--emit", "k8s"])
        XCTAssertEqual(o.status, 64)
        XCTAssertEqual(o.error, "Error: \(matte) is also an input; write the output somewhere else.")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: matte)), before)
        XCTAssertEqual(try leftovers(), ["matte.mp4"])
    }

    // --report DIR passed validation, the whole render ran, and the report's write then failed
    // with Foundation's error dump ("Error Domain=NSCocoaErrorDomain Code=512 ...") and no movie.
    func testAReportOrProfileNamingAFolderIsRefusedBeforeTheWork() throws {
        let folder = scratch.appendingPathComponent("reports")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let out = scratch.appendingPathComponent("o.mp4").path
        let r = try run(["snake", pan, "--imu", panIMU, "-o", out, "--report", folder.path])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: --report \(folder.path) is a folder; give a file name.")
        let c = try run(["calibrate", pan, "--imu", panIMU, "-o", folder.path])
        XCTAssertEqual(c.status, 64)
        XCTAssertEqual(c.error, "Error: \(folder.path) is a folder; give a file name.")
        XCTAssertEqual(try leftovers(), ["reports"])
    }

    // A profile whose timeOffsetMs is 1e300 reached the snake's integer nanoseconds; /dev/zero
    // as a profile was read until memory ran out.
    func testSnakeProfilesOutOfRangeOrNotFilesAreOneSentence() throws {
        let profile = try file("p.json", #"{"name":"x","axisMapping":"XYZ","focalLengthPx":300,"timeOffsetMs":1e300,"gyroBias":[0,0,0]}"#)
        let out = scratch.appendingPathComponent("o.mp4").path
        let r = try run(["snake", pan, "--imu", panIMU, "--calibration", profile, "-o", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(profile): timeOffsetMs must be between -3600000 and 3600000\n")
        let z = try run(["snake", pan, "--imu", panIMU, "--calibration", "/dev/zero", "-o", out])
        XCTAssertEqual(z.status, 1)
        XCTAssertEqual(z.stderr, "Error: /dev/zero: not a calibration profile (not a regular file)\n")
        XCTAssertEqual(try leftovers(), ["p.json"])
    }

    // A CSV of 1e308 rad/s (finite, so the reader took it) trapped the renderer: the trail's
    // velocity went to infinity, then NaN, then Int(NaN) (SIGILL, a temporary file left).
    func testSnakeRefusesGyroReadingsNoGyroMeasures() throws {
        var text = "t_ns,gx,gy,gz\n"
        for i in 0..<400 { text += "\(i * 5_000_000),1e308,-1e308,1e308\n" }
        let trace = try file("huge.csv", text)
        let r = try run(["snake", pan, "--imu", trace, "-o", scratch.appendingPathComponent("o.mp4").path])
        XCTAssertEqual(r.status, 1)
        // Past any sensor: the rule every command applies to a trace (IMUReading.problem).
        XCTAssertEqual(r.stderr, "Error: \(trace): the sample at 0 ns holds gx = 1e+308, beyond +-1000000; not a motion sensor's reading\n")
        // Within it, past any gyro: the snake's own limit.
        var fast = "t_ns,gx,gy,gz\n"
        for i in 0..<400 { fast += "\(i * 5_000_000),2000,0,0\n" }
        let spin = try file("spin.csv", fast)
        let s = try run(["snake", pan, "--imu", spin, "-o", scratch.appendingPathComponent("o.mp4").path])
        XCTAssertEqual(s.status, 1)
        XCTAssertEqual(s.stderr, "Error: \(spin): a gyro reading at 0.000 s is beyond 1000 rad/s; not a trace of a camera's motion.\n")
        XCTAssertEqual(try leftovers(), ["huge.csv", "spin.csv"])
    }

    // The full sweep of 2026-11-27: a trace with no reading or one rendered a trail that only
    // decays, exit 0 with two warnings.
    func testSnakeRefusesATraceWithFewerThanTwoReadings() throws {
        for (name, text, says) in [
            ("empty.csv", "", "no readings"), ("header.csv", "t_ns,gx,gy,gz\n", "no readings"),
            ("one.csv", "t_ns,gx,gy,gz\n0,0.1,0,0\n", "one reading")
        ] {
            let trace = try file(name, text)
            let r = try run(["snake", pan, "--imu", trace, "-o", scratch.appendingPathComponent("o.mp4").path])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertEqual(r.stderr, "Error: \(trace): the trace has \(says); the snake follows the motion between readings.\n")
            XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("o.mp4").path), name)
        }
    }

    // filter --matte M --matte-mode multiply ran with exit 0: the mode is composite's (what the
    // matte does to a key's alpha) and filter ignored it.
    func testFilterRefusesMatteMode() throws {
        let r = try run([
            "filter", "--filter", "mono", "--matte", Repository.fixture("q1.mp4"), "--matte-mode", "multiply",
            "-o", scratch.appendingPathComponent("o.mp4").path, Repository.fixture("q0.mp4")
        ])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: --matte-mode goes with composite's keyed blends; filter weights its filter by the matte.")
        XCTAssertEqual(try leftovers(), [])
    }
}
