import Foundation
import TestSupport
import XCTest

/// `--segments N --slurm` on `snake` and `filter` as on `composite`: a dry run prints the job
/// array's script running the same subcommand with the user's own arguments (minus the output
/// and the scale-out options) and writes nothing. No cluster needed.
final class ScaleOutCommandsTests: ScratchFolderTestCase {
    func fixture(_ name: String) -> String { Repository.fixture(name) }

    func testSnakeDryRunPrintsAnArrayOfSnakeSegments() throws {
        let out = scratch.appendingPathComponent("snake.mp4").path
        let video = fixture("synthetic/pan.mp4"), trace = fixture("synthetic/pan-imu.csv")
        let r = try Processes.lockstep([
            "snake", video, "--imu", trace, "--gyro-gain", "2", "--gop", "15", "-o", out,
            "--segments", "4", "--slurm", "--dry-run", "--partition", "lockstep", "--time", "00:30:00"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 180 frames make 12 GOPs of 15: three a segment.
        XCTAssertTrue(r.stdout.contains("# 4 segments of 180 frames (GOP 15): 0:45 45:90 90:135 135:180\n"), r.stdout)
        let work = "\(scratch.path)/.snake.mp4.lockstep-work"
        for line in [
            "#SBATCH --array=0-3", "#SBATCH --partition=lockstep", "#SBATCH --time=00:30:00",
            "#SBATCH --output=\(work)/seg-%4a.log", "  2) frames=90:135 ;;",
            "\"$lockstep\" snake \(video) --imu \(trace) --gyro-gain 2 --gop 15 --frames \"$frames\" --audio-codec flac -o \"$work/seg-$n.mkv\"",
            "# sbatch --parsable --dependency=afterok:<array id> --kill-on-invalid-dep=yes \(work)/join.sh",
            "exec \"$lockstep\" join-segments \(work)"
        ] {
            XCTAssertTrue(r.stdout.split(separator: "\n").contains(Substring(line)), "missing line: \(line)\n\(r.stdout)")
        }
        XCTAssertFalse(r.stdout.contains("\"$lockstep\" composite"), r.stdout)
        XCTAssertEqual(try leftovers(), [], "a dry run writes nothing")
    }

    func testFilterDryRunPrintsAnArrayOfFilterSegments() throws {
        let out = scratch.appendingPathComponent("graded.mp4").path
        let bg = fixture("bg.mp4")
        let r = try Processes.lockstep([
            "filter", "--filter", "invert", "--filter-at", "1=none", bg, "--gop", "15", "-o", out,
            "--segments", "2", "--slurm", "--dry-run"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("# 2 segments of 90 frames (GOP 15): 0:45 45:90\n"), r.stdout)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        for line in [
            "#SBATCH --array=0-1", "  0) frames=0:45 ;;", "  1) frames=45:90 ;;",
            "\"$lockstep\" filter --filter invert --filter-at 1=none \(bg) --gop 15 --frames \"$frames\" --audio-codec flac -o \"$work/seg-$n.mkv\""
        ] {
            XCTAssertTrue(lines.contains(line), "missing line: \(line)\n\(r.stdout)")
        }
        XCTAssertFalse(lines.contains { $0.hasPrefix("#SBATCH --partition") }, "no partition unless asked")
        XCTAssertEqual(try leftovers(), [])
    }

    func testFilterAndSnakeRefuseWhatASegmentTaskSetsOrCannotSplit() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let variants = try Processes.lockstep([
            "filter", "--variants", "invert;none", "-o", scratch.path + "/v", fixture("bg.mp4"),
            "--segments", "2", "--slurm", "--dry-run"
        ])
        XCTAssertEqual(variants.status, 64)
        XCTAssertEqual(variants.stderr.split(separator: "\n").first, "Error: --variants cannot be combined with --segments: each variant is a render of its own.")
        let frames = try Processes.lockstep([
            "snake", fixture("synthetic/pan.mp4"), "--imu", fixture("synthetic/pan-imu.csv"), "-o", out,
            "--frames", "0:30", "--segments", "2", "--slurm", "--dry-run"
        ])
        XCTAssertEqual(frames.status, 1)
        XCTAssertEqual(frames.stderr, "Error: --frames cannot be given with --segments: each segment task sets it.\n")
        let slurmOnly = try Processes.lockstep(["snake", fixture("synthetic/pan.mp4"), "--imu", fixture("synthetic/pan-imu.csv"), "-o", out, "--slurm"])
        XCTAssertEqual(slurmOnly.status, 64)
        XCTAssertEqual(slurmOnly.stderr.split(separator: "\n").first, "Error: --slurm needs --segments N.")
        XCTAssertEqual(try leftovers(), [])
    }
}
