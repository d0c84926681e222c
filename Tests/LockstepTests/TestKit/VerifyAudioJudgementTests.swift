import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// verify's audio judgement against what a file's container can express (issue 26): untouched
/// camera files, clips ending in silence and Lockstep's own Matroska outputs are good files;
/// audio off by more than the container's resolution is still named.
final class VerifyAudioJudgementTests: ScratchTestCase {
    func violations(_ path: String) throws -> [Violation] { try VerifyJob(options: VerifyOptions(movie: path)).run().violations }

    /// Real cameras end their AAC on a whole 1024-sample frame: karma's 4 ms before its video,
    /// the Hero 7's 12 ms before, the Max's 7 ms after. None is a fault.
    func testUntouchedCameraFilesVerify() throws {
        for name in ["karma.mp4", "gopro-hero7/hero7.mp4", "gopro-max/max-heromode.mp4"] {
            XCTAssertEqual(try violations(Repository.shared(name)), [], name)
        }
    }

    /// Composite and filter into .mkv: AAC's priming moves every stream 21 ms later (the first
    /// frame at 0.021 s), the durations are in milliseconds. Lockstep's own output verifies.
    func testMatroskaOutputsOfCompositeAndFilterVerify() throws {
        let composite = scratch.appendingPathComponent("c.mkv").path
        _ = try CompositeJob(
            options: CompositeOptions(
                inputs: [Fixtures.url("q0.mp4").path, Fixtures.url("q1.mp4").path],
                output: composite, blend: .mix)
        ).run()
        XCTAssertEqual(try violations(composite), [])
        let filtered = scratch.appendingPathComponent("f.mkv").path
        _ = try CompositeJob(
            options: .filter(
                input: Fixtures.url("q0.mp4").path, output: filtered,
                schedule: try FilterSchedule.parse(filter: "mono", filterAt: nil))
        ).run()
        XCTAssertEqual(try violations(filtered), [])
        let probe = try MovieProbe.probe(filtered)
        XCTAssertEqual(probe.streams.first { $0.type == "video" }?.startTime, 0.021, "the shift this test is about")
    }

    /// Made by the ffmpeg CLI, not by Lockstep: a tone, then a second of digital silence to the
    /// end of the video. An ordinary good file.
    func testAClipEndingInSilenceMadeElsewhereVerifies() throws {
        let out = scratch.appendingPathComponent("quiet-end.mp4").path
        _ = try Shell.check(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=3",
                "-f", "lavfi", "-i", "sine=f=660:d=2,apad=whole_dur=3",
                "-c:v", "libx264", "-c:a", "aac", "-shortest", out
            ])
        XCTAssertEqual(try violations(out), [])
    }

    /// A camera file whose audio was cut 60 ms short (by copy: still whole AAC frames): more than
    /// a frame off, named.
    func testAudioOffByMoreThanAFrameIsStillNamed() throws {
        let karma = Repository.shared("karma.mp4")
        let out = scratch.appendingPathComponent("short-audio.mp4").path
        // 12.075 s of audio; cut to 11.99 s (whole frames: 562 x 1024 samples).
        _ = try Shell.check(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-i", karma, "-map", "0:v", "-map", "0:a",
                "-c", "copy", "-t", "12.08", "-af", "atrim=end=11.99", "-c:a", "aac", out
            ])
        let v = try violations(out)
        XCTAssertEqual(v.map(\.kind), [.audioEnd], "\(v)")
        XCTAssertTrue(v.first?.message.hasPrefix("audio ends ") ?? false)
    }
}
