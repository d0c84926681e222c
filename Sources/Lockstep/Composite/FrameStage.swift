import Compositor
import Media

/// One step of the composite's per-frame path after the blend (`lockstep composite`, `filter`,
/// `snake`): the filter chain in force, then the snake. Each changes the output picture in
/// place, learns the frame's place from a `FrameContext` and answers with a `StageResult`; the
/// job runs them in order on every tick (`CompositeJob`). A stage that cannot go on as asked
/// says so in its result (the snake's segment whose pre-roll window was too short): nothing is
/// polled. The blend itself is not a stage: it makes the frame from the inputs' pictures,
/// where a stage takes one frame and changes it.
protocol FrameStage: AnyObject {
    func process(_ frame: Frame, _ context: FrameContext) throws -> StageResult
    /// After the last frame, `frames` of them at `frameRate`: what the stage must still check.
    func finish(frames: Int64, frameRate: Rational) throws
}

extension FrameStage {
    func finish(frames: Int64, frameRate: Rational) throws {}
}

/// Where the frame in hand sits.
struct FrameContext {
    /// Its index in the single pass (a segment's frames keep theirs; pre-roll frames too).
    var index: Int64
    /// Its time on the output's clock: index / frame rate.
    var outputTime: Rational
    /// Its time on the video's clock (ns): the first input's chosen frame's pts.
    var videoTime: Int64
    /// False for a segment's pre-roll frames: rendered so the next ones are exact, never written.
    var written: Bool
    /// The matte input's picture, where the filter chain is mixed in by it (`filter --matte`).
    var matte: Frame?
}

/// What a stage answers for a frame.
enum StageResult: Equatable {
    /// Done; `provenance`: what the frame's provenance records of this stage (the filter
    /// chain's text), nil for nothing.
    case done(provenance: String?)
    /// A segment's first frame could not be made exact within the pre-roll window: the job
    /// must start again with a longer one.
    case needsLongerPreRoll
}

extension FilterStage: FrameStage {
    func process(_ frame: Frame, _ context: FrameContext) throws -> StageResult {
        if let matte = context.matte, let mix = matteMix {
            return .done(provenance: try apply(to: frame, matte: matte, mix: mix, index: context.index, time: context.outputTime))
        }
        return .done(provenance: try apply(to: frame, index: context.index, time: context.outputTime))
    }
}

extension SnakeStage: FrameStage {
    func process(_ frame: Frame, _ context: FrameContext) throws -> StageResult {
        switch apply(to: frame, index: context.index, time: context.videoTime, written: context.written) {
        case .rendered: return .done(provenance: nil)
        case .needsLongerPreRoll: return .needsLongerPreRoll
        }
    }
}
