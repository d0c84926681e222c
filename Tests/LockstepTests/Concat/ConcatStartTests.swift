import Compositor
import XCTest

@testable import Lockstep

/// Where a concat cut starts reading (`ConcatStart.plan`), from the clips' frame times alone:
/// which clips it skips, where each lies on the joined timeline (its time 0 and first tick, as
/// the decoding loop would find them), and the frame the cut's first tick shows in the clip it
/// seeks into. The expected values are worked out by hand in each case's comment.
final class ConcatStartTests: XCTestCase {
    typealias Clip = ConcatStart.Clip
    let fps30 = Rational(30, 1)

    /// `count` frames `step` apart in `timeBase`, each lasting `step`.
    func clip(_ count: Int, step: Int64, timeBase: Rational, nominal: Rational?, lead: Rational? = Rational(1, 10), streamEnd: Timestamp? = nil) -> Clip {
        Clip(
            frames: SegmentPlan.Frames(pts: (0..<Int64(count)).map { $0 * step }, durations: Array(repeating: step, count: count), timeBase: timeBase),
            lastPacketDuration: step, streamEnd: streamEnd, nominalFrameRate: nominal, audioLead: lead)
    }

    /// 10 s at 30 fps in MP4's 1/15360.
    var tenSeconds: Clip { clip(300, step: 512, timeBase: Rational(1, 15360), nominal: fps30) }

    func plan(_ clips: [Clip?], from k: Int64, sync: SyncMode = .time, fade: Int64 = 0) -> ConcatStart {
        ConcatStart.plan(cutFrom: k, clips: clips.count, sync: sync, frameRate: fps30, fadeSamples: fade) { clips[$0] }
    }

    func testACutInTheSecondClipSkipsTheFirst() {
        // Clip 0 fills ticks 0-299 and lasts 10 s; tick 400 (13.333 s) is clip 1's 3.333 s, its
        // frame 100; the sound from 0.1 s before that, frame 97's time.
        XCTAssertEqual(
            plan([tenSeconds, tenSeconds], from: 400),
            ConcatStart(clip: 1, starts: [Rational(0, 1), Rational(10, 1)], firstTicks: [0, 300], seek: SegmentPlan.Start(first: 100, seekFrom: 97)))
        // A third clip: both before it skipped.
        XCTAssertEqual(
            plan([tenSeconds, tenSeconds, tenSeconds], from: 789),
            ConcatStart(
                clip: 2, starts: [Rational(0, 1), Rational(10, 1), Rational(20, 1)], firstTicks: [0, 300, 600],
                seek: SegmentPlan.Start(first: 189, seekFrom: 186)))
    }

    func testACutInTheFirstClipSeeksThere() {
        XCTAssertEqual(plan([tenSeconds, tenSeconds], from: 100), ConcatStart(clip: 0, starts: [Rational(0, 1)], firstTicks: [0], seek: SegmentPlan.Start(first: 100, seekFrom: 97)))
        XCTAssertEqual(plan([tenSeconds, tenSeconds], from: 0), .fromTheStart)
        // Without sound, decoding starts at the cut's own frame.
        var silent = tenSeconds
        silent.audioLead = nil
        XCTAssertEqual(plan([silent], from: 100).seek, SegmentPlan.Start(first: 100, seekFrom: 100))
    }

    /// A 25 fps clip of 251 frames lasts 10.04 s: at 30 fps it fills ticks 0-301 (tick 301 at
    /// 10.033 s is inside its last frame), and the next clip's time 0 lies at 10.04 s, between
    /// ticks. Tick 303 (10.1 s) is that clip's 0.06 s: its frame 1 (at 0.033 s); the sound's
    /// lead reaches back before its start, to frame 0.
    func testAClipThatEndsBetweenTicksPlacesTheNextOffTheGrid() {
        let odd = clip(251, step: 512, timeBase: Rational(1, 12800), nominal: Rational(25, 1))
        XCTAssertEqual(
            plan([odd, tenSeconds], from: 303),
            ConcatStart(clip: 1, starts: [Rational(0, 1), Rational(251, 25)], firstTicks: [0, 302], seek: SegmentPlan.Start(first: 1, seekFrom: 0)))
    }

    /// An edit list ending the last frame early: 30 frames of 1/30 s in 1/600, the container
    /// saying the stream ends at 0.98 s. The next clip starts there, not at 1 s (0.02 s is far
    /// more than a rounded time).
    func testAStreamEndInsideTheLastFrameEndsTheClip() {
        let edited = clip(30, step: 20, timeBase: Rational(1, 600), nominal: fps30, streamEnd: Timestamp(588, Rational(1, 600)))
        let p = plan([edited, tenSeconds], from: 60)
        XCTAssertEqual(p.clip, 1)
        XCTAssertEqual(p.starts, [Rational(0, 1), Rational(49, 50)])
        XCTAssertEqual(p.firstTicks, [0, 30])
        // 2 s - 0.98 s = 1.02 s of clip 1: frame 30 (1 s).
        XCTAssertEqual(p.seek?.first, 30)
    }

    /// Matroska's 1 ms times: 24 fps stored as 0, 42, 83, ... and the last frame lasting 41 ms,
    /// so 48 frames measure 1.999 s; the decoding loop takes 2 s exactly (48 frames at the
    /// nominal rate, within the rounding), and so does the plan.
    func testRoundedTimesSnapToTheNominalRate() {
        let pts = (0..<48).map { Int64((Double($0) * 1000 / 24).rounded()) }
        var durations = zip(pts.dropFirst(), pts).map { $0 - $1 }
        durations.append(41)
        let mkv = Clip(
            frames: SegmentPlan.Frames(pts: pts, durations: durations, timeBase: Rational(1, 1000)), lastPacketDuration: 41, streamEnd: nil,
            nominalFrameRate: Rational(24, 1), audioLead: nil)
        let p = plan([mkv, tenSeconds], from: 90)
        XCTAssertEqual(p.starts, [Rational(0, 1), Rational(2, 1)])
        XCTAssertEqual(p.firstTicks, [0, 60])
        XCTAssertEqual(p.seek, SegmentPlan.Start(first: 30, seekFrom: 30 - 3))
    }

    /// `--keep-frames`: every frame one tick, whatever its time: clip 0's 100 frames fill ticks
    /// 0-99, so tick 150 is clip 1's frame 50; its sound lies on the clip's own time from
    /// tick 100, so 1.667 s - 0.1 s in: frame 47.
    func testKeepFramesCountsFrames() {
        let p25 = clip(100, step: 512, timeBase: Rational(1, 12800), nominal: Rational(25, 1))
        XCTAssertEqual(
            plan([p25, tenSeconds], from: 150, sync: .index),
            ConcatStart(clip: 1, starts: [Rational(0, 1), Rational(0, 1)], firstTicks: [0, 100], seek: SegmentPlan.Start(first: 50, seekFrom: 47)))
    }

    /// With a crossfade of 0.5 s each side, a cut 0.167 s after the join hears the clip before:
    /// that clip is read from its start (no seek); 1 s after the join it is not.
    func testACutInsideAFadeReadsTheClipBefore() {
        XCTAssertEqual(plan([tenSeconds, tenSeconds], from: 305, fade: 24_000), .fromTheStart)
        XCTAssertEqual(plan([tenSeconds, tenSeconds, tenSeconds], from: 605, fade: 24_000), ConcatStart(clip: 1, starts: [Rational(0, 1), Rational(10, 1)], firstTicks: [0, 300], seek: nil))
        XCTAssertEqual(plan([tenSeconds, tenSeconds], from: 330, fade: 24_000).seek, SegmentPlan.Start(first: 30, seekFrom: 27))
    }

    /// A clip that cannot be measured (a pipe, a clock going back: nil) or a still is read from
    /// its start, and every clip after it too.
    func testAClipThatCannotBeMeasuredIsReadFromItsStart() {
        XCTAssertEqual(
            plan([tenSeconds, nil, tenSeconds], from: 700), ConcatStart(clip: 1, starts: [Rational(0, 1), Rational(10, 1)], firstTicks: [0, 300], seek: nil))
        let still = clip(1, step: 512, timeBase: Rational(1, 15360), nominal: nil)
        XCTAssertEqual(plan([still, tenSeconds], from: 30), .fromTheStart)
        XCTAssertEqual(plan([tenSeconds, still, tenSeconds], from: 330).clip, 1)
    }

    /// A cut past the join's end: the last clip is read (the decoding loop says the cut is past
    /// the end, naming it).
    func testACutPastTheEndReadsTheLastClip() {
        XCTAssertEqual(
            plan([tenSeconds, tenSeconds], from: 700), ConcatStart(clip: 1, starts: [Rational(0, 1), Rational(10, 1)], firstTicks: [0, 300], seek: nil))
    }
}
