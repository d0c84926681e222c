/// The frame loop, written once: every command that makes frames (composite, filter, snake,
/// concat's clips, the variants pass) is this loop with its own inputs and its own tick. The
/// policy (`FrameSync`) decides; the caller brings the frames and renders the ticks:
///
///   need(i)    -> `pull(i)`: input i's next frame, its end, or its lane closed (a failure)
///   release(p) -> `release(p)`: a frame the policy no longer needs goes back to its pool
///   emit(k)    -> `emit(sync, k)`: render and hand on tick k; false stops the loop
///   end(i)     -> the loop ends: input i ended the output
public enum FramePull<Payload> {
    case frame(SourceFrame, Payload)
    /// The input has no more frames.
    case end
    /// Its lane was closed under it (a failure or a stop elsewhere): the loop ends at once.
    case closed
}

/// How the loop ended.
public enum FrameLoopEnd: Equatable, Sendable {
    /// The policy's end: input `input` ended the output at `tick`.
    case ended(input: Int, tick: Int64)
    /// A pull found its lane closed.
    case closed
    /// `emit` said stop (a segment complete, a cap, every consumer gone).
    case stopped
}

extension FrameSync {
    /// Runs the loop until the policy ends it, a lane closes or `emit` says stop. Frames still
    /// held afterwards are the caller's to `drain()`.
    public mutating func drive(
        pull: (Int) throws -> FramePull<Payload>, release: (Payload) -> Void, emit: (borrowing FrameSync<Payload>, Int64) throws -> Bool
    ) rethrows -> FrameLoopEnd {
        while true {
            switch step() {
            case .need(let i):
                switch try pull(i) {
                case .frame(let frame, let payload): push(frame, payload: payload, input: i)
                case .end: finish(input: i)
                case .closed: return .closed
                }
            case .release(let payload):
                release(payload)
            case .emit(let tick):
                if try !emit(self, tick) { return .stopped }
            case .end(let input, let tick):
                return .ended(input: input, tick: tick)
            }
        }
    }
}
