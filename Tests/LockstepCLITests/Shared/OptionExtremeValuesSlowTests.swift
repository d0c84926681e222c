import Foundation
import TestSupport
import XCTest

/// A property test over extreme values for every option of every command that takes one
/// (issue 26): the options come from the binary's own `--experimental-dump-help`, so one added
/// later is tried too. Each run either succeeds or fails with exit 1, 2 or 64 and one "Error:"
/// line; never a signal (a trap), never a hang. Slow: about two thousand runs.
final class OptionExtremeValuesSlowTests: ScratchFolderTestCase {
    static let extremes = [
        "0", "-1", "-9223372036854775808", "9223372036854775807", "2147483648", "4294967296/4294967295",
        "1e308", "-1e308", "1e-308", "nan", "inf", "99999999999999999999", "4294967296x2", "-5x-5", "0x0", ""
    ]

    /// Valid arguments for each command, before the option under test (OUT: a file in scratch).
    func base(_ command: [String]) -> [String]? {
        let q0 = Repository.fixture("q0.mp4"), q1 = Repository.fixture("q1.mp4"), trace = Repository.fixture("imu/pan.csv")
        let out = scratch.appendingPathComponent("out.mp4").path
        switch command {
        case ["composite"]: return ["composite", "--blend", "mix", q0, q1, "-o", out]
        case ["concat"]: return ["concat", q0, q1, "-o", out]
        case ["filter"]: return ["filter", "--filter", "mono", q0, "-o", out]
        case ["reverse"]: return ["reverse", q0, "-o", out]
        case ["thumbnail"]: return ["thumbnail", q0, "-o", scratch.appendingPathComponent("t.png").path]
        case ["testsrc"]: return ["testsrc", "--duration", "0.5", "--size", "160x90", "-o", out]
        case ["snake"]: return ["snake", Repository.fixture("synthetic/pan.mp4"), "--imu", Repository.fixture("synthetic/pan-imu.csv"), "-o", out]
        case ["calibrate"]:
            return [
                "calibrate", Repository.fixture("synthetic/pan.mp4"), "--imu", Repository.fixture("synthetic/pan-imu.csv"),
                "-o", scratch.appendingPathComponent("p.json").path
            ]
        case ["imu", "info"]: return ["imu", "info", trace]
        case ["imu", "import"]: return ["imu", "import", trace, "-o", scratch.appendingPathComponent("s.sqlite").path]
        case ["imu", "export"]: return ["imu", "export", trace, "-o", scratch.appendingPathComponent("e.csv").path]
        case ["imu", "plot"]: return ["imu", "plot", trace, "-o", scratch.appendingPathComponent("p.svg").path]
        case ["imu", "serve"]: return nil  // a valid value serves until stopped: its options are checked by IMUServeCommandTests
        case ["verify"]: return ["verify", q0]
        case ["kernels"], ["filter-kernels"]: return command + ["--size", "64x48", "--frames", "1"]
        default: return nil
        }
    }

    /// Options whose value names a file or a place: not numbers, and tried elsewhere.
    static let notNumbers: Set<String> = [
        "output", "imu", "calibration", "report", "matte", "junit", "image", "volume-claim", "partition",
        "host", "uri", "device", "emit", "blend", "sync", "keyer", "preset", "audio", "audio-codec",
        "codec", "format", "drive", "key-view", "matte-mode", "variants", "filter", "filter-at"
    ]

    func testEveryOptionTakesExtremeValuesWithoutATrapOrAHang() throws {
        let dump = try Processes.run(Repository.binary.path, ["--experimental-dump-help"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any])
        var cases: [[String]] = []
        func walk(_ c: [String: Any], _ path: [String]) {
            let name = path + [c["commandName"] as? String ?? ""]
            let command = Array(name.dropFirst())
            if let base = base(command) {
                for a in c["arguments"] as? [[String: Any]] ?? [] where a["kind"] as? String == "option" {
                    guard let long = (a["names"] as? [[String: Any]])?.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                        !Self.notNumbers.contains(long)
                    else { continue }
                    for v in Self.extremes { cases.append(base + ["--\(long)=\(v)"]) }
                }
            }
            for s in c["subcommands"] as? [[String: Any]] ?? [] { walk(s, name) }
        }
        walk(try XCTUnwrap(json["command"] as? [String: Any]), [])
        XCTAssertGreaterThan(cases.count, 500)
        var failures: [String] = []
        for args in cases {
            let r = try Processes.run(Repository.binary.path, args, timeout: 120)
            let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: ") }
            let oneLine =
                r.status == 0
                || (lines.first?.hasPrefix("Error: ") ?? false)
                    && lines.dropFirst().allSatisfy { $0.hasPrefix("Usage:") || $0.hasPrefix("Help:") || $0.hasPrefix("  ") }
            if ![0, 1, 2, 64].contains(r.status) || !oneLine {
                failures.append("\(args.suffix(1).joined()) of \(args.prefix(2).joined(separator: " ")): exit \(r.status), \(r.stderr.prefix(200))")
            }
            for name in (try? leftovers()) ?? [] where name.contains(".lockstep-") { failures.append("\(args): left \(name)") }
            for name in (try? leftovers()) ?? [] { try? FileManager.default.removeItem(at: scratch.appendingPathComponent(name)) }
        }
        print("\(cases.count) runs, \(failures.count) failures")
        XCTAssertEqual(failures, [])
    }
}
