import Foundation
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// Real job arrays through the one-node cluster of scripts/tools/slurm-local: a 4-segment render
/// joined by the join task equals the single pass (provenance frame for frame, barcodes read by
/// the ffmpeg CLI, frame count, verify clean, ffprobe's audio and video durations within 1 ms);
/// a failing segment leaves nothing under the output's name, the join is cancelled, and
/// `--resume` reruns that segment alone.
///
/// Slow tier (`scripts/test --all`, which installs Slurm through `scripts/setup --all` and
/// starts the cluster with `scripts/tools/slurm-local up` before the tests, and stops it after).
/// These tests install and start nothing: without a running cluster each fails, saying so.
final class ScaleOutSlurmSlowTests: ScratchFolderTestCase {
    static let script = Repository.root.appendingPathComponent("scripts/tools/slurm-local").path

    override func setUpWithError() throws {
        try super.setUpWithError()
        let status = try Processes.run(Self.script, ["status"])
        guard status.status == 0 else {
            throw Processes.Failure(description: "no one-node Slurm cluster is running: `scripts/tools/slurm-local up` starts one (`scripts/test --all` does)")
        }
    }

    /// `lockstep ARGS` with extra environment (sbatch passes the submitter's environment to its tasks).
    func lockstep(_ args: [String], env: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try Processes.run("/usr/bin/env", env + [Repository.binary.path] + args, timeout: 600)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    func fixture(_ name: String) -> String { Repository.fixture(name) }

    /// Renders `args` once in a single pass and once in 4 segments on Slurm; checks they agree.
    func assertScaleOutEqualsSinglePass(_ args: [String], frames: Int, bands: [BarcodeRegion], file: StaticString = #filePath, line: UInt = #line) throws {
        let single = scratch.appendingPathComponent("single.mp4"), joined = scratch.appendingPathComponent("joined.mp4")
        let one = try lockstep(["composite"] + args + ["-o", single.path])
        XCTAssertEqual(one.status, 0, one.stderr, file: file, line: line)
        let r = try lockstep(["composite"] + args + ["-o", joined.path, "--segments", "4", "--slurm", "--wait"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr, file: file, line: line)
        XCTAssertTrue(r.stdout.contains("joined \(joined.path): \(frames) frames from 4 segments, verify clean"), r.stdout, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ScaleOutPlan.workFolder(for: joined.path)), "the work folder is removed", file: file, line: line)
        try assertSameRender(single, joined, frames: frames, bands: bands, file: file, line: line)
    }

    func assertSameRender(_ single: URL, _ joined: URL, frames: Int, bands: [BarcodeRegion], file: StaticString = #filePath, line: UInt = #line) throws {
        let a = try VerifyJob.scan(single.path), b = try VerifyJob.scan(joined.path)
        XCTAssertEqual(a.frames.count, frames, file: file, line: line)
        XCTAssertEqual(b.frames.count, frames, file: file, line: line)
        XCTAssertEqual(b.frames.map { $0.provenance?.k }, a.frames.map { $0.provenance?.k }, file: file, line: line)
        XCTAssertEqual(b.frames.map { $0.provenance?.src }, a.frames.map { $0.provenance?.src }, file: file, line: line)
        XCTAssertEqual(b.frames.map { $0.provenance?.k }, (0..<frames).map { Int64($0) }, file: file, line: line)
        let report = Checks.run(b)
        XCTAssertTrue(report.ok, "\(report.violations)", file: file, line: line)
        // The outside checker: ffmpeg's decode, the fixtures' barcodes, frame by frame.
        let va = try LumaVideo.decode(single), vb = try LumaVideo.decode(joined)
        XCTAssertEqual(vb.frames.count, frames, file: file, line: line)
        for band in bands {
            let ia = va.frames.map { Barcode.read($0, width: va.width, region: band).map { "\($0.source):\($0.index)" } ?? "-" }
            let ib = vb.frames.map { Barcode.read($0, width: vb.width, region: band).map { "\($0.source):\($0.index)" } ?? "-" }
            XCTAssertEqual(ib, ia, file: file, line: line)
            XCTAssertGreaterThan(ia.filter { $0 != "-" }.count, frames / 2, "the band is read at all", file: file, line: line)
        }
        let streams = try Probe.streams(joined)
        let video = try XCTUnwrap(streams.first { $0.codecType == "video" }?.duration, file: file, line: line)
        let audio = try XCTUnwrap(streams.first { $0.codecType == "audio" }?.duration, file: file, line: line)
        XCTAssertEqual(audio, video, accuracy: 0.001, file: file, line: line)
        XCTAssertEqual(streams.first { $0.codecType == "audio" }?.codecName, "aac", file: file, line: line)
    }

    func testChromaKeyInFourSegmentsEqualsTheSinglePass() throws {
        try assertScaleOutEqualsSinglePass(
            ["--blend", "chromakey", "--gop", "15", fixture("fg.mp4"), fixture("bg.mp4")],
            frames: 60, bands: [.band(1), .band(0)])
    }

    /// Four inputs of 30 and 25 fps and 75 to 48 frames, on the time clock: 48 output frames.
    func testQuadOfDifferentRatesAndLengthsInFourSegmentsEqualsTheSinglePass() throws {
        let inputs = ["q0.mp4", "q1.mp4", "r25.mp4", "q3.mp4"].map(fixture)
        let bands = (0..<4).map { i in
            BarcodeRegion.band([0, 1, 1, 3][i]).scaled(by: 0.5, offsetX: Double(i % 2) * 160, offsetY: Double(i / 2) * 120)
        }
        try assertScaleOutEqualsSinglePass(["--blend", "quad", "--sync", "time", "--gop", "12"] + inputs, frames: 48, bands: bands)
    }

    func testFailedSegmentLeavesNothingAndResumeRerunsItAlone() throws {
        // The tasks run this wrapper (LOCKSTEP): it logs every call and, while FAIL exists,
        // gives task 2 a background that is missing on "its node".
        let calls = scratch.appendingPathComponent("calls.log").path, flag = scratch.appendingPathComponent("FAIL").path
        let wrapper = try file(
            "lockstep-wrapper",
            """
            #!/bin/bash
            echo "${SLURM_ARRAY_TASK_ID:-join}" >> '\(calls)'
            args=()
            for a in "$@"; do
              if [ -e '\(flag)' ] && [ "${SLURM_ARRAY_TASK_ID:-}" = 2 ] && [ "$a" = '\(fixture("bg.mp4"))' ]; then
                a='\(scratch.path)/missing-on-this-node.mp4'
              fi
              args+=("$a")
            done
            exec '\(Repository.binary.path)' "${args[@]}"

            """)
        chmod(wrapper, 0o755)
        XCTAssertTrue(FileManager.default.createFile(atPath: flag, contents: nil), "the failure flag is made")
        let args = ["--blend", "chromakey", "--gop", "15", fixture("fg.mp4"), fixture("bg.mp4")]
        let out = scratch.appendingPathComponent("out.mp4"), work = ScaleOutPlan.workFolder(for: out.path)
        let first = try lockstep(["composite"] + args + ["-o", out.path, "--segments", "4", "--slurm", "--wait"], env: ["LOCKSTEP=\(wrapper)"])
        XCTAssertEqual(first.status, 1, first.stdout + first.stderr)
        XCTAssertTrue(first.stdout.contains("segment 2 (frames 30:45) failed: Error: \(scratch.path)/missing-on-this-node.mp4: no such file."), first.stdout)
        XCTAssertTrue(
            first.stderr.contains(
                "Error: \(out.path): 1 of 4 segments failed and the join was cancelled; nothing was written under that name. Run the same command with --resume to render only those again."),
            first.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        XCTAssertFalse(try leftovers().contains { $0.hasPrefix(".out.mp4.lockstep-") && $0.hasSuffix(".tmp") })
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasSuffix(".done") }.sorted(),
            ["seg-0000.done", "seg-0001.done", "seg-0003.done"])
        // The join was cancelled by Slurm (its dependency can never be met), not left pending.
        let joinID = try XCTUnwrap(
            first.stdout.split(separator: "\n").first { $0.hasPrefix("submitted the join as job ") }?
                .split(separator: " ")[5])
        let shown = String(decoding: try Processes.check("scontrol", ["show", "job", String(joinID)]), as: UTF8.self)
        XCTAssertTrue(shown.contains("JobState=CANCELLED"), shown)
        XCTAssertEqual(try String(contentsOfFile: calls, encoding: .utf8).split(separator: "\n").sorted(), ["0", "1", "2", "3"])

        try FileManager.default.removeItem(atPath: flag)
        let resumed = try lockstep(["composite"] + args + ["-o", out.path, "--segments", "4", "--slurm", "--wait", "--resume"], env: ["LOCKSTEP=\(wrapper)"])
        XCTAssertEqual(resumed.status, 0, resumed.stdout + resumed.stderr)
        XCTAssertTrue(resumed.stdout.contains("submitted segments 2 of 4 as job array "), resumed.stdout)
        XCTAssertEqual(try String(contentsOfFile: calls, encoding: .utf8).split(separator: "\n").map(String.init).suffix(2), ["2", "join"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work))

        let single = scratch.appendingPathComponent("single.mp4")
        let one = try lockstep(["composite"] + args + ["-o", single.path])
        XCTAssertEqual(one.status, 0, one.stderr)
        try assertSameRender(single, out, frames: 60, bands: [.band(1), .band(0)])
    }

    /// An output folder and name with spaces, `#`, `%` and quotes (sbatch's #SBATCH values and
    /// `--output` pattern), and a `--wait-timeout` shorter than the job: one line naming the jobs,
    /// exit 1, nothing cancelled; `--resume --wait` then waits for the same jobs to the end.
    func testOddOutputPathAndAWaitThatTimesOutThenResumes() throws {
        let folder = scratch.appendingPathComponent("out dir #1 100%")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("take \"1\".mp4").path, work = ScaleOutPlan.workFolder(for: out)
        let args = ["composite", "--blend", "chromakey", "--gop", "15", fixture("fg.mp4"), fixture("bg.mp4"), "-o", out, "--segments", "4", "--slurm", "--wait"]
        let first = try lockstep(args + ["--wait-timeout", "0.5"])
        XCTAssertEqual(first.status, 1, first.stdout + first.stderr)
        let lines = first.stdout.split(separator: "\n")
        let ids = [
            lines.first { $0.hasPrefix("submitted segments ") }?.split(separator: " ").last,
            lines.first { $0.hasPrefix("submitted the join as job ") }?.split(separator: " ")[5]
        ].compactMap { $0.map(String.init) }
        XCTAssertEqual(ids.count, 2, first.stdout)
        XCTAssertEqual(
            first.stderr,
            "Error: \(out): not finished after --wait-timeout 0.5 s; jobs \(ids[0]) and \(ids[1]) left running (squeue -j \(ids.joined(separator: ","))); run the same command with --resume --wait to wait again.\n"
        )
        let again = try lockstep(args + ["--resume"])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stdout.contains("waiting again for jobs \(ids[0]), \(ids[1]) of this scale-out\n"), again.stdout)
        XCTAssertTrue(again.stdout.contains("joined \(out): 60 frames from 4 segments, verify clean"), again.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work), "the work folder is removed")
        XCTAssertEqual(try VerifyJob.scan(out).frames.count, 60)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["take \"1\".mp4"])
    }

    func testBadRequestsAreOneSentence() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let base = ["composite", "--blend", "chromakey", fixture("fg.mp4"), fixture("bg.mp4"), "-o", out]
        let cases: [([String], Int32, String)] = [
            (["--segments", "0", "--slurm"], 64, "Error: --segments must be at least 1 (got 0).\n"),
            (["--slurm"], 64, "Error: --slurm needs --segments N.\n"),
            (["--segments", "2"], 64, "Error: --segments needs --slurm or --emit k8s.\n"),
            (["--wait"], 64, "Error: --wait needs --segments N with --slurm.\n"),
            (["--segments", "2", "--slurm", "--emit", "k8s"], 64, "Error: --slurm and --emit k8s exclude each other: submit, or write manifests.\n"),
            (["--segments", "2", "--slurm", "--dry-run", "--wait"], 64, "Error: --wait and --dry-run exclude each other: a dry run submits nothing.\n"),
            (["--segments", "61", "--slurm", "--gop", "1"], 1, "Error: --segments 61 is more than the output's 60 frames.\n"),
            (["--segments", "2", "--slurm", "--frames", "0:10"], 1, "Error: --frames cannot be given with --segments: each segment task sets it.\n"),
            (["--segments", "2", "--slurm", "--resume", "--gop", "15"], 1, "Error: \(ScaleOutPlan.workFolder(for: out)): no work folder to resume (the scale-out finished, or never started).\n")
        ]
        for (extra, status, message) in cases {
            let r = try lockstep(base + extra)
            XCTAssertEqual(r.status, status, "\(extra): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map { $0 + "\n" }, message, "\(extra)")
        }
        // No sbatch on PATH.
        let noSlurm = try lockstep(base + ["--segments", "2", "--slurm", "--gop", "15"], env: ["PATH=/nonexistent"])
        XCTAssertEqual(noSlurm.status, 1)
        XCTAssertEqual(noSlurm.stderr, "Error: --slurm: sbatch not found on PATH; install Slurm's client (slurm-client) or try scripts/tools/slurm-local up.\n")
        XCTAssertEqual(try leftovers(), [])
    }

    func testDryRunPrintsTheScriptsAndSubmitsNothing() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let r = try lockstep([
            "composite", "--blend", "chromakey", "--gop", "15", fixture("fg.mp4"), fixture("bg.mp4"), "-o", out,
            "--segments", "4", "--slurm", "--dry-run", "--partition", "lockstep"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("# 4 segments of 60 frames (GOP 15): 0:15 15:30 30:45 45:60\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("#SBATCH --array=0-3\n#SBATCH --output="), r.stdout)
        XCTAssertTrue(r.stdout.contains("#SBATCH --partition=lockstep\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("--dependency=afterok:<array id> --kill-on-invalid-dep=yes"), r.stdout)
        XCTAssertEqual(try leftovers(), [], "a dry run writes nothing")
    }

    func testEmitK8sWritesManifestsBesideTheOutput() throws {
        let out = scratch.appendingPathComponent("out.mp4").path, work = ScaleOutPlan.workFolder(for: out)
        let r = try lockstep([
            "composite", "--blend", "chromakey", "--gop", "15", fixture("fg.mp4"), fixture("bg.mp4"), "-o", out,
            "--segments", "4", "--emit", "k8s", "--image", "example/lockstep:1"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: work).sorted(),
            ["README-k8s.txt", "k8s-join.yaml", "k8s-segments.yaml", "plan.json", "segment.sh"])
        let yaml = try String(contentsOfFile: work + "/k8s-segments.yaml", encoding: .utf8)
        XCTAssertTrue(yaml.contains("  completionMode: Indexed\n  completions: 4\n  parallelism: 4\n"), yaml)
        XCTAssertTrue(r.stdout.contains("kubectl wait --for=condition=complete --timeout=24h job/lockstep-out-segments"), r.stdout)
    }

    /// `snake --segments 4 --slurm`: every segment rebuilds the trail (replayed motion, pixels
    /// pre-rolled), so the joined movie's pictures are the single pass's to the pixel (both
    /// lossless, --crf 0, decoded by the ffmpeg CLI) and so is its provenance. The background
    /// fixture with the synthetic camera's gyro, the front quad at 0.6: the join runs `verify`,
    /// whose frozen-frame rule (mean luma change under 0.1) takes a snake whose only change is
    /// a quarter-size front quad over a still picture for frozen frames.
    func testSnakeInFourSegmentsHasTheSinglePassesPixels() throws {
        let args = [
            fixture("bg.mp4"), "--imu", fixture("synthetic/pan-imu.csv"), "--offset-ms", "87", "--gyro-gain", "4",
            "--front-scale", "0.6", "--crf", "0", "--gop", "15"
        ]
        let single = scratch.appendingPathComponent("single.mp4"), joined = scratch.appendingPathComponent("joined.mp4")
        let one = try lockstep(["snake"] + args + ["-o", single.path])
        XCTAssertEqual(one.status, 0, one.stderr)
        let r = try lockstep(["snake"] + args + ["-o", joined.path, "--segments", "4", "--slurm", "--wait"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("joined \(joined.path): 90 frames from 4 segments, verify clean"), r.stdout)
        let a = try VerifyJob.scan(single.path), b = try VerifyJob.scan(joined.path)
        XCTAssertEqual(b.frames.map { $0.provenance?.k }, (0..<90).map { Int64($0) })
        XCTAssertEqual(b.frames.map { $0.provenance?.src }, a.frames.map { $0.provenance?.src })
        let pa = try SnakeSegmentTests.pictures(single, width: 320, height: 240), pb = try SnakeSegmentTests.pictures(joined, width: 320, height: 240)
        XCTAssertEqual(pa.count, 90)
        XCTAssertEqual(pb.count, 90)
        XCTAssertEqual(zip(pa, pb).enumerated().filter { $1.0 != $1.1 }.map(\.offset), [], "frames of the joined movie that differ")
    }
}
