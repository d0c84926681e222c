import Foundation
import TestSupport
import XCTest

/// `align`'s refusals for too little sound say numbers that agree with the limit they name:
/// "shares only 1.10 s ...; align needs at least 1 s" (the fine stage also keeps 0.1 s clear at
/// each end) and "has only 1.00 s of sound" (0.996 s, rounded) read as contradictions. Sound
/// made by ffmpeg's generators; the cuts by sample counts.
final class AlignShortSoundTests: ScratchFolderTestCase {
    func ffmpeg(_ args: [String]) throws { _ = try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-y"] + args) }

    func testTooLittleSoundInCommonSaysWhatIsNeeded() throws {
        let reference = scratch.appendingPathComponent("ref.wav").path, input = scratch.appendingPathComponent("in.wav").path
        try ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=color=brown:amplitude=0.5:seed=11:sample_rate=48000:duration=10",
            "-af", "volume='0.2+0.8*gt(sin(7*t)*sin(2.3*t+1)*sin(0.71*t),0.05)':eval=frame,highpass=f=200", "-c:a", "pcm_s16le", reference
        ])
        // The reference's last 1.1 s, then 2 s of other sound.
        try ffmpeg([
            "-i", reference, "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.3:seed=3:sample_rate=48000:duration=2",
            "-filter_complex", "[0:a]atrim=start_sample=427200,asetpts=N/SR/TB[a];[a][1:a]concat=n=2:v=0:a=1[o]", "-map", "[o]", "-c:a", "pcm_s16le", input
        ])
        let r = try Processes.lockstep(["align", reference, input])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(
            r.stderr,
            "Error: input 2 (\(input)) shares only 1.10 s of sound with input 1 (\(reference)); align needs at least 1.2 s (1 s to measure, and 0.1 s searched at each end).\n"
        )
        // 47,808 samples at 48 kHz: 0.996 s, less than the 1 s it needs, and said so.
        let short = scratch.appendingPathComponent("short.wav").path
        try ffmpeg(["-i", reference, "-af", "atrim=start_sample=144000:end_sample=191808,asetpts=N/SR/TB", "-c:a", "pcm_s16le", short])
        let s = try Processes.lockstep(["align", reference, short])
        XCTAssertEqual(s.status, 1)
        XCTAssertEqual(s.stderr, "Error: input 2 (\(short)) has only 0.996 s of sound; align needs at least 1 s.\n")
    }
}
