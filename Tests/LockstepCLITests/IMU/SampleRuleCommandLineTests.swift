import Foundation
import TestSupport
import XCTest

/// One rule for what a sample may be (`IMUReading.problem`: finite, within +-1e6, a time within
/// 2.3e9 s), applied by every command to a trace from any source: a CAMM camera track holding
/// inf was exported as "inf,inf,inf,-nan" (exit 0) and made calibrate say the trace overlapped
/// the video nowhere; 3e38 from a DataFlash log or a .csv passed export, info and plot but not
/// import. Each command now refuses with the same line naming the file, the time and the value,
/// exit 1, and leaves nothing under its output's name.
final class SampleRuleCommandLineTests: ScratchFolderTestCase {
    static func script(_ name: String) -> String { Repository.script(name) }
    var pan: String { Repository.fixture("synthetic/pan.mp4") }

    /// Every command that reads `trace` refuses it with `problem` (after "Error: FILE: "),
    /// `movie` the clip that calibrate and snake are given with it.
    func assertEveryCommandRefuses(_ trace: String, movie: String, _ problem: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try leftovers()
        let out = { (name: String) in self.scratch.appendingPathComponent(name).path }
        let runs: [(String, [String], String)] = [
            ("import", ["imu", "import", trace, "-o", out("s.sqlite")], "; nothing was imported"),
            ("export", ["imu", "export", trace, "-o", out("e.csv")], ""),
            ("info", ["imu", "info", trace], ""),
            ("info --json", ["imu", "info", trace, "--json"], ""),
            ("plot", ["imu", "plot", trace, "-o", out("p.svg")], ""),
            ("calibrate", ["calibrate", movie, "--imu", trace, "-o", out("c.json")], ""),
            ("snake", ["snake", movie, "--imu", trace, "-o", out("o.mp4"), "--quiet"], "")
        ]
        for (what, args, tail) in runs {
            let r = try Processes.lockstep(args, timeout: 600)
            XCTAssertEqual(r.status, 1, "\(what): \(r.stderr)", file: file, line: line)
            XCTAssertEqual(r.stderr, "Error: \(trace): \(problem)\(tail)\n", what, file: file, line: line)
            XCTAssertEqual(r.stdout, "", what, file: file, line: line)
            XCTAssertEqual(try leftovers(), before, "\(what) left nothing", file: file, line: line)
        }
    }

    /// A CAMM track (written by scripts/fixtures/make-camm-fixture, from the spec) whose 11th gyro sample
    /// holds inf; its time read from the same track without it.
    func testCAMMTrackHoldingInfinity() throws {
        let good = scratch.appendingPathComponent("good.mp4").path, bad = scratch.appendingPathComponent("inf.mp4").path
        for (movie, extra) in [(good, [String]()), (bad, ["--gyro-x", "10=inf"])] {
            let made = try Processes.run("python3", [Self.script("make-camm-fixture")] + extra + [movie, movie + ".json"], timeout: 300)
            XCTAssertEqual(made.status, 0, made.stderr)
            try FileManager.default.removeItem(atPath: movie + ".json")
        }
        let rows = scratch.appendingPathComponent("good.csv").path
        let e = try Processes.lockstep(["imu", "export", good, "-o", rows])
        XCTAssertEqual(e.status, 0, e.stderr)
        let t = try String(contentsOfFile: rows, encoding: .utf8).split(separator: "\n")[11].split(separator: ",")[0]
        try FileManager.default.removeItem(atPath: rows)
        try FileManager.default.removeItem(atPath: good)
        try assertEveryCommandRefuses(bad, movie: bad, "the sample at \(t) ns holds gx = inf, not a finite number")
        // The movie's own track, followed when no --imu is given.
        let s = try Processes.lockstep(["snake", bad, "-o", scratch.appendingPathComponent("o.mp4").path, "--quiet"])
        XCTAssertEqual(s.status, 1)
        XCTAssertEqual(s.stderr, "Error: \(bad): the sample at \(t) ns holds gx = inf, not a finite number\n")
    }

    /// An ArduPilot log (scripts/fixtures/make-dataflash-log) whose gyro reads 3e38 deg/s for 10 ms: the
    /// float32 radians are finite, and past any sensor.
    func testDataFlashLogHoldingHugeValues() throws {
        let rows = try file("huge.csv", "1.0,3e38,0,0\n1.01,3e38,0,0\n")
        let log = scratch.appendingPathComponent("huge.bin").path
        let made = try Processes.run(
            "python3", [Self.script("make-dataflash-log"), log, log + ".json", "--instances", "1", "--seconds", "3", "--gyro", rows + "@0"], timeout: 300)
        XCTAssertEqual(made.status, 0, made.stderr)
        struct Truth: Decodable { var instances: [[[Double]]] }
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: log + ".json")))
        guard let first = truth.instances[0].first(where: { abs($0[1]) > 1e6 }) else { return XCTFail("no huge sample written") }
        try FileManager.default.removeItem(atPath: log + ".json")
        try FileManager.default.removeItem(atPath: rows)
        try assertEveryCommandRefuses(log, movie: pan, "the sample at \(Int64(first[0]) * 1000) ns holds gx = \(first[1]), beyond +-1000000; not a motion sensor's reading")
    }

    /// A .csv: 3e38 is a number the reader takes, and is refused by the rule; nan and inf are
    /// refused by the reader (as "not a number"), naming the line, in every command alike.
    func testCSVHoldingHugeOrNonFiniteValues() throws {
        var text = "t_ns,gx,gy,gz\n"
        for i in 0..<400 { text += "\(i * 5_000_000),0.1,\(i == 7 ? "-3e38" : "0.2"),0.3\n" }
        let huge = try file("huge.csv", text)
        try assertEveryCommandRefuses(huge, movie: pan, "the sample at 35000000 ns holds gy = -3e+38, beyond +-1000000; not a motion sensor's reading")
        try FileManager.default.removeItem(atPath: huge)
        for value in ["nan", "inf"] {
            let bad = try file("\(value).csv", text.replacingOccurrences(of: "-3e38", with: value))
            let before = try leftovers()
            let out = { (name: String) in self.scratch.appendingPathComponent(name).path }
            for args in [["imu", "import", bad, "-o", out("s.sqlite")], ["imu", "export", bad, "-o", out("e.csv")], ["imu", "info", bad], ["imu", "plot", bad, "-o", out("p.svg")]] {
                let r = try Processes.lockstep(args)
                XCTAssertEqual(r.status, 1, r.stderr)
                XCTAssertEqual(r.stderr, "Error: \(bad):9: '\(value)' is not a number\n", args[1])
            }
            XCTAssertEqual(try leftovers(), before)
            try FileManager.default.removeItem(atPath: bad)
        }
    }
}
