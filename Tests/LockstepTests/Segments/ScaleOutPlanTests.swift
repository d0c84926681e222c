import Foundation
import XCTest

@testable import Lockstep

/// The scale-out plan without I/O: boundaries on GOP multiples, the arguments the tasks get,
/// the scripts' text, the Kubernetes manifests' fields.
final class ScaleOutPlanTests: XCTestCase {
    func plan(frames: Int64 = 100, gop: Int64 = 10, segments: Int = 4, arguments: [String] = ["--blend", "chromakey", "fg.mp4", "bg.mp4"]) throws -> ScaleOutPlan {
        try ScaleOutPlan(
            lockstep: "/opt/lockstep/bin/lockstep", arguments: arguments, output: "/shared/out/final cut.mp4",
            workingDirectory: "/shared/in", totalFrames: frames, gop: gop, segments: segments)
    }

    func testBoundariesFallOnGOPMultiplesAndCoverEveryFrameOnce() throws {
        let table: [(frames: Int64, gop: Int64, n: Int, expected: [String])] = [
            (100, 10, 4, ["0:20", "20:50", "50:70", "70:100"]),  // 10 GOPs over 4: 2, 3, 2, 3
            (48, 12, 4, ["0:12", "12:24", "24:36", "36:48"]),
            (50, 12, 4, ["0:12", "12:24", "24:36", "36:50"]),  // 5 GOPs (the last 2 frames) over 4
            (60, 15, 1, ["0:60"]),
            (7, 250, 1, ["0:7"]),
            (108000, 250, 64, [])
        ]
        for row in table {
            let ranges = try ScaleOutPlan.boundaries(frames: row.frames, segments: row.n, gop: row.gop)
            if !row.expected.isEmpty { XCTAssertEqual(ranges.map(\.description), row.expected, "\(row)") }
            XCTAssertEqual(ranges.count, row.n)
            XCTAssertEqual(ranges.first?.start, 0)
            XCTAssertEqual(ranges.last?.end, row.frames)
            for (a, b) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(a.end, b.start) }
            for r in ranges { XCTAssertEqual(r.start % row.gop, 0, "\(r) in \(row)"); XCTAssertLessThan(r.start, try XCTUnwrap(r.end)) }
        }
    }

    func testImpossibleSplitsAreSentences() {
        func message(_ f: Int64, _ n: Int, _ g: Int64) -> String? {
            do { _ = try ScaleOutPlan.boundaries(frames: f, segments: n, gop: g); return nil } catch { return "\(error)" }
        }
        XCTAssertEqual(message(100, 0, 10), "--segments must be at least 1 (got 0).")
        XCTAssertEqual(message(3, 4, 1), "--segments 4 is more than the output's 3 frames.")
        XCTAssertEqual(message(48, 5, 12), "--segments 5: the output's 48 frames make only 4 GOPs of 12 frames and segments start on a GOP; use at most 4 (or a smaller --gop).")
        XCTAssertEqual(message(48, 2, 0), "--gop must be at least 1 (got 0).")
    }

    func testSegmentArgumentsDropTheOutputAndTheScaleOutOptions() throws {
        let typed = [
            "--blend", "quad", "-o", "out.mp4", "--segments", "4", "--slurm", "--partition=debug", "--time", "10:00",
            "--wait", "--wait-timeout", "60", "--dry-run", "--resume", "--gop", "12", "a.mp4", "--output=x.mp4", "-oy.mp4", "b c.mp4",
            "--wait-timeout=5"
        ]
        XCTAssertEqual(try ScaleOutCommandLine.segmentArguments(typed), ["--blend", "quad", "--gop", "12", "a.mp4", "b c.mp4"])
        XCTAssertThrowsError(try ScaleOutCommandLine.segmentArguments(["--frames", "0:10", "a.mp4"])) {
            XCTAssertEqual("\($0)", "--frames cannot be given with --segments: each segment task sets it.")
        }
        // After "--" everything is an input, even a name that looks like one of our options.
        XCTAssertEqual(try ScaleOutCommandLine.segmentArguments(["--blend", "mix", "--", "--slurm", "a.mp4"]), ["--blend", "mix", "--", "--slurm", "a.mp4"])
    }

    func testWorkFolderIsHiddenBesideTheOutput() throws {
        XCTAssertEqual(ScaleOutPlan.workFolder(for: "/shared/out/final cut.mp4"), "/shared/out/.final cut.mp4.lockstep-work")
        let p = try plan()
        XCTAssertEqual(p.segmentFile(3), "/shared/out/.final cut.mp4.lockstep-work/seg-0003.mkv")
        XCTAssertEqual(
            p.segmentCommand(1),
            [
                "/opt/lockstep/bin/lockstep", "composite", "--blend", "chromakey", "fg.mp4", "bg.mp4",
                "--frames", "20:50", "--audio-codec", "flac", "-o", "/shared/out/.final cut.mp4.lockstep-work/seg-0001.mkv"
            ])
    }

    func testArraySpecMergesRuns() {
        XCTAssertEqual(ScaleOutPlan.arraySpec([0, 1, 2, 3]), "0-3")
        XCTAssertEqual(ScaleOutPlan.arraySpec([2]), "2")
        XCTAssertEqual(ScaleOutPlan.arraySpec([5, 0, 1, 3]), "0-1,3,5")
    }

    /// Each (input, expected) pair through `quote`, one failure per wrong pair.
    private func assertQuotes(_ quote: (String) -> String, _ pairs: KeyValuePairs<String, String>, line: UInt = #line) {
        for (input, expected) in pairs { XCTAssertEqual(quote(input), expected, "quoting \(input)", line: line) }
    }

    func testShellQuoting() {
        assertQuotes(ScaleOutPlan.shellQuote, ["a.mp4": "a.mp4", "b c.mp4": "'b c.mp4'", "it's": "'it'\\''s'", "": "''", "$HOME": "'$HOME'"])
    }

    func testSegmentScriptHoldsTheArrayTheRangesAndTheAtomicMarker() throws {
        let p = try plan()
        let s = p.segmentScript(indices: [1, 3], slurm: SlurmSettings(partition: "render", time: "02:00:00"))
        let lines = s.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "#!/bin/bash")
        for expected in [
            "#SBATCH --array=1,3", "#SBATCH --partition=render", "#SBATCH --time=02:00:00", "#SBATCH --chdir=/shared/in",
            "#SBATCH --output=\"/shared/out/.final cut.mp4.lockstep-work/seg-%4a.log\"",
            "  0) frames=0:20 ;;", "  3) frames=70:100 ;;",
            "work='/shared/out/.final cut.mp4.lockstep-work'",
            "lockstep=${LOCKSTEP:-/opt/lockstep/bin/lockstep}",
            "\"$lockstep\" composite --blend chromakey fg.mp4 bg.mp4 --frames \"$frames\" --audio-codec flac -o \"$work/seg-$n.mkv\"",
            "mv -f \"$work/seg-$n.done.tmp\" \"$work/seg-$n.done\""
        ] {
            XCTAssertTrue(lines.contains(expected), "missing line: \(expected)\n\(s)")
        }
        // The marker comes after the render: `set -e` skips it when the render fails.
        XCTAssertTrue(lines.contains("set -euo pipefail"))
        XCTAssertLessThan(lines.firstIndex { $0.hasPrefix("\"$lockstep\" composite") }!, lines.firstIndex { $0.hasPrefix("mv -f") }!)
    }

    /// sbatch reads an #SBATCH value up to white space or `#` unless quoted, takes `\\` as an
    /// escape, and `%` in --output as a replacement symbol (`%%` a plain one).
    func testSbatchQuoting() {
        assertQuotes(
            ScaleOutPlan.sbatchQuote,
            [
                "/shared/in": "/shared/in", "/a b/c": "\"/a b/c\"", "/take#2": "\"/take#2\"",
                "/say \"hi\"": "\"/say \\\"hi\\\"\"", "it's": "\"it's\"", "$HOME": "$HOME", "": "\"\""
            ])
        assertQuotes(ScaleOutPlan.sbatchLiteral, ["/x/100% cut": "/x/100%% cut"])
    }

    /// Spaces, `#`, `%`, quotes and `$` in the work folder, the inputs and the submitting folder:
    /// every #SBATCH value quoted for sbatch, every shell word for bash, the YAML strings quoted.
    func testPathsWithSpacesAndOddCharactersAreQuotedEverywhere() throws {
        let p = try ScaleOutPlan(
            lockstep: "/opt/lock step/lockstep", arguments: ["--blend", "chromakey", "my fg.mp4", "/in/bg #2 $x.mp4"],
            output: "/shared/out 100%/take #1 \"best\".mp4", workingDirectory: "/shared/in put",
            totalFrames: 100, gop: 10, segments: 4)
        let s = p.segmentScript(indices: [0, 1, 2, 3], slurm: SlurmSettings(partition: "gpu nodes", time: "1:00:00"))
        let lines = s.split(separator: "\n").map(String.init)
        for expected in [
            "#SBATCH --output=\"/shared/out 100%%/.take #1 \\\"best\\\".mp4.lockstep-work/seg-%4a.log\"",
            "#SBATCH --chdir=\"/shared/in put\"",
            "#SBATCH --partition=\"gpu nodes\"",
            "#SBATCH --time=1:00:00",
            "work='/shared/out 100%/.take #1 \"best\".mp4.lockstep-work'",
            "lockstep=${LOCKSTEP:-'/opt/lock step/lockstep'}",
            "\"$lockstep\" composite --blend chromakey 'my fg.mp4' '/in/bg #2 $x.mp4' --frames \"$frames\" --audio-codec flac -o \"$work/seg-$n.mkv\""
        ] {
            XCTAssertTrue(lines.contains(expected), "missing line: \(expected)\n\(s)")
        }
        let join = p.joinScript(slurm: SlurmSettings())
        XCTAssertTrue(join.contains("#SBATCH --output=\"/shared/out 100%%/.take #1 \\\"best\\\".mp4.lockstep-work/join.log\"\n"), join)
        XCTAssertTrue(join.contains("exec \"$lockstep\" join-segments '/shared/out 100%/.take #1 \"best\".mp4.lockstep-work'\n"), join)
        let yaml = p.kubernetesSegmentsJob(KubernetesSettings())
        XCTAssertTrue(yaml.contains("  workingDir: \"/shared/in put\"\n"), yaml)
        XCTAssertTrue(yaml.contains("    mountPath: \"/shared/out 100%\"\n"), yaml)
        XCTAssertTrue(yaml.contains("  command: [\"/bin/bash\", \"/shared/out 100%/.take #1 \\\"best\\\".mp4.lockstep-work/segment.sh\"]\n"), yaml)
        XCTAssertNoThrow(try p.checkSlurmPaths())
    }

    /// A line break would end the #SBATCH line (and the comment above it); a backslash turns off
    /// sbatch's %a: one sentence each, before anything is written.
    func testPathsSlurmCannotCarryAreSentences() throws {
        var p = try plan()
        p.output = "/shared/two\nlines.mp4"
        // One check for both targets (it was written twice, with two different messages).
        for check in [p.checkScriptPaths, p.checkSlurmPaths] {
            XCTAssertThrowsError(try check()) {
                XCTAssertEqual("\($0)", "-o /shared/two\\nlines.mp4: a path with a line break or another control character cannot go into a job script; use another name.")
            }
        }
        var q = try plan()
        q.workingDirectory = "/shared/tab\there"
        XCTAssertThrowsError(try q.checkSlurmPaths()) {
            XCTAssertEqual("\($0)", "the current folder /shared/tab\\there: a path with a line break or another control character cannot go into a job script; use another name.")
        }
        XCTAssertFalse(p.kubernetesJoinJob(KubernetesSettings()).contains("two\nlines"), "the YAML comment stays one line")
        p.output = "/shared/back\\slash.mp4"
        XCTAssertThrowsError(try p.checkSlurmPaths()) {
            XCTAssertEqual("\($0)", "/shared/back\\slash.mp4: --slurm cannot use an output path with a backslash: sbatch then ignores the %a that names each task's log.")
        }
    }

    /// `--resume` (and `--resume --wait`) take up a work folder only for the same render: a
    /// saved plan of `composite` with the same arguments is not one of `snake`'s (the subcommand
    /// was left out of the comparison, so the two commands' segments could be joined).
    /// Each segment task reads the matte: -o naming it passed (only the movies were checked),
    /// and the join would have replaced the user's matte.
    func testTheOutputCannotBeTheMatte() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-scaleout-matte-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let matte = folder.appendingPathComponent("matte.mp4").path
        try FileManager.default.copyItem(atPath: Fixtures.url("bg.mp4").path, toPath: matte)
        var options = CompositeOptions(inputs: [Fixtures.url("fg.mp4").path, Fixtures.url("bg.mp4").path], output: matte, blend: .chromakey)
        options.matte = MatteOptions(path: matte)
        let request = ScaleOutRequest(
            composite: options, arguments: ["--blend", "chromakey"], segments: 2,
            target: .kubernetes(KubernetesSettings()), lockstep: "/opt/lockstep/bin/lockstep")
        XCTAssertThrowsError(try ScaleOutJob.makePlan(request)) {
            XCTAssertEqual("\($0)", "\(matte) is also an input; write the output somewhere else.")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["matte.mp4"])
    }

    func testResumeNeedsTheSameSubcommand() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let composite = try ScaleOutPlan(
            lockstep: "/bin/lockstep", command: "composite", arguments: ["in.mp4"],
            output: dir.appendingPathComponent("out.mp4").path, workingDirectory: "/tmp",
            totalFrames: 100, gop: 10, segments: 2)
        var snake = composite
        snake.command = "snake"
        try FileManager.default.createDirectory(atPath: composite.work, withIntermediateDirectories: true)
        try ScaleOutStore.save(composite)
        XCTAssertEqual(try ScaleOutJob.resumablePlan(composite, submitter: nil), composite)
        XCTAssertThrowsError(try ScaleOutJob.resumablePlan(snake, submitter: nil)) {
            XCTAssertEqual("\($0)", "\(composite.work) was planned for another command, other arguments or segments; remove it to start again.")
        }
        XCTAssertFalse(snake.isSameRender(as: composite))
    }

    func testJoinScriptRunsTheHiddenJoinOnTheWorkFolder() throws {
        let s = try plan().joinScript(slurm: SlurmSettings())
        XCTAssertTrue(s.contains("exec \"$lockstep\" join-segments '/shared/out/.final cut.mp4.lockstep-work'\n"), s)
        XCTAssertFalse(s.contains("--partition"))
        XCTAssertEqual(ScaleOutPlan.joinSubmitArguments(afterArray: "41"), ["--dependency=afterok:41", "--kill-on-invalid-dep=yes"])
    }

    func testPlanRoundTripsThroughJSON() throws {
        let p = try plan()
        XCTAssertEqual(try JSONDecoder().decode(ScaleOutPlan.self, from: JSONEncoder().encode(p)), p)
    }

    /// A plan saved before the `command` field (every task then ran `composite`) still loads,
    /// as a composite's: a join or `--resume` after an upgrade must not find it unreadable.
    func testAPlanWithoutACommandIsAComposite() throws {
        let p = try plan()
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(p)) as? [String: Any])
        XCTAssertEqual(json.removeValue(forKey: "command") as? String, "composite")
        let old = try JSONDecoder().decode(ScaleOutPlan.self, from: JSONSerialization.data(withJSONObject: json))
        XCTAssertEqual(old, p)
        var snake = p
        snake.command = "snake"
        XCTAssertEqual(try JSONDecoder().decode(ScaleOutPlan.self, from: JSONEncoder().encode(snake)).command, "snake")
    }

    func testKubernetesNamesAreDNSLabels() throws {
        XCTAssertEqual(try plan().jobBaseName, "lockstep-final-cut")
        var p = try plan()
        p.output = "/x/" + String(repeating: "Ü", count: 5) + "_.mp4"
        XCTAssertEqual(p.jobBaseName, "lockstep-render")
        p.output = "/x/" + String(repeating: "a", count: 80) + ".mp4"
        XCTAssertLessThanOrEqual(p.jobBaseName.count + "-segments".count, 52)  // room for Kubernetes' pod suffixes within 63
    }
}
