import Compositor
import Media
import XCTest

@testable import Lockstep

/// The per-frame stages after the blend, through their one protocol: what each does to the
/// frame and answers.
final class FrameStageTests: XCTestCase {
    func context(_ index: Int64, matte: Frame? = nil) -> FrameContext {
        FrameContext(index: index, outputTime: Rational(Int64(index), 30), videoTime: 0, written: true, matte: matte)
    }

    func luma(_ frame: Frame) -> UInt8 { frame.withImage { $0.y[5, 5] } }

    func testTheFilterStageRendersTheChainInForceAndNamesItForTheProvenance() throws {
        let stage: any FrameStage = try FilterStage(schedule: FilterSchedule(initial: FilterChainSpec(parsing: "invert")), canvas: Size(width: 16, height: 16))
        let frame = try Frame(width: 16, height: 16, color: YUVColor(y: 60, u: 128, v: 128))
        XCTAssertEqual(try stage.process(frame, context(0)), .done(provenance: "invert"))
        XCTAssertGreaterThan(luma(frame), 150, "inverted")
        // A matte in the context is not used by a stage made without a matte mix (a blend keys it).
        let matte = try Frame(width: 16, height: 16, color: YUVColor(y: 16, u: 128, v: 128))
        let again = try Frame(width: 16, height: 16, color: YUVColor(y: 60, u: 128, v: 128))
        XCTAssertEqual(try stage.process(again, context(1, matte: matte)), .done(provenance: "invert"))
        XCTAssertEqual(luma(again), luma(frame))
        XCTAssertNoThrow(try stage.finish(frames: 2, frameRate: Rational(30, 1)))
    }

    func testWithAMatteMixTheChainIsMixedInWhereTheMatteSaysSo() throws {
        let stage: any FrameStage = try FilterStage(
            schedule: FilterSchedule(initial: FilterChainSpec(parsing: "invert")), canvas: Size(width: 16, height: 16), matteMix: MatteMix(factor: 1))
        // A black matte keeps the picture as it was; a white one takes the filtered picture.
        let black = try Frame(width: 16, height: 16, color: YUVColor(y: 16, u: 128, v: 128))
        let white = try Frame(width: 16, height: 16, color: YUVColor(y: 235, u: 128, v: 128))
        let kept = try Frame(width: 16, height: 16, color: YUVColor(y: 60, u: 128, v: 128))
        let taken = try Frame(width: 16, height: 16, color: YUVColor(y: 60, u: 128, v: 128))
        XCTAssertEqual(try stage.process(kept, context(0, matte: black)), .done(provenance: "invert"))
        XCTAssertEqual(try stage.process(taken, context(0, matte: white)), .done(provenance: "invert"))
        XCTAssertEqual(luma(kept), 60)
        XCTAssertGreaterThan(luma(taken), 150)
    }
}
