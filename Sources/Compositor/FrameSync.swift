/// How output tick k (at t = k / fps, from 0) picks one frame from each input.
///
///   .index  the k-th frame of every input, in presentation order, whatever its timestamp
///           (one frame from each reader per writer tick).
///   .time   from each input, the last frame whose time (pts minus that input's first pts)
///           is <= t. A frame may serve several ticks; frames between ticks are skipped.
///           A stored pts is the true time rounded to the time base (Matroska: 1 ms, so a
///           30 fps frame at 66.67 ms is stored as 67 ms): a frame counts as due when its time
///           is within half a time-base unit (at most 1 ms) of t. Still exact arithmetic.
///
/// Before its first frame an input has nothing to give, so nothing is emitted until every
/// input has delivered one (no black start). After its end an input is never repeated
/// (no frozen layer): the output ends at the first tick some input cannot serve.
///   .index  an input with no k-th frame ends the output;
///   .time   an input ends at its last frame's time plus that frame's duration.
///           An input whose timestamps go back (two recordings joined, a wrapped clock) ends
///           at the jump: the frame after it is not taken, and `backwardJumps` says where, so
///           the caller can warn. The time axis has no answer for "which frame is on screen"
///           once it repeats, and a frame-exact tool must not guess.
public enum SyncMode: String, CaseIterable, Sendable {
    case index, time
}

/// What the sync knows of a decoded frame. Timestamps are rescaled once, here, on the way in.
public struct SourceFrame: Equatable, Sendable {
    /// 0-based position in presentation order.
    public var index: Int
    public var pts: Timestamp
    /// Duration as the container or decoder gave it, if any.
    public var duration: Rational?
    public init(index: Int, pts: Timestamp, duration: Rational? = nil) {
        self.index = index; self.pts = pts; self.duration = duration
    }
}

/// The sync policy as a small state machine over timestamps. It owns no frames: it holds the
/// caller's payloads (frame handles) in a window of at most two per input, tells the caller
/// which input to read next, which payloads it may recycle, and when a tick is complete.
public struct FrameSync<Payload> {
    public enum Step {
        /// Read the next frame of this input and `push` it, or call `finish` at its end.
        case need(input: Int)
        /// This payload is no longer needed: recycle it.
        case release(Payload)
        /// Every input has its frame for `tick`: read them with `chosen(_:)`; the next
        /// `step()` moves on to the following tick.
        case emit(tick: Int64)
        /// The output ends before `tick`: this input has no frame for it.
        case end(input: Int, tick: Int64)
    }

    /// Where an input's timestamps went back (under `.time`): it ended there.
    public struct BackwardJump: Equatable, Sendable {
        public var input: Int
        /// The last frame taken and the first one refused.
        public var last: SourceFrame
        public var refused: SourceFrame
        public init(input: Int, last: SourceFrame, refused: SourceFrame) { self.input = input; self.last = last; self.refused = refused }
    }

    public let mode: SyncMode
    public let frameRate: Rational
    public private(set) var tick: Int64 = 0
    public private(set) var backwardJumps: [BackwardJump] = []

    private struct Entry { var frame: SourceFrame; var time: Rational; var payload: Payload }
    private struct Lane {
        var window: [Entry] = []
        var origin: Timestamp?
        /// Half a time-base unit, at most 1 ms: how far a stored time may be from the true one.
        var rounding = Rational(0, 1)
        var ended = false
    }
    private var lanes: [Lane]
    private var emitted = false
    private var finished = false

    /// `startTick`: a segment render's first tick (its global output index; the inputs' frames
    /// pushed start there, and their origins are given with `setOrigin`).
    public init(mode: SyncMode, inputs: Int, frameRate: Rational, startTick: Int64 = 0) {
        precondition(inputs > 0 && frameRate.num > 0 && startTick >= 0)
        self.mode = mode
        self.frameRate = frameRate
        tick = startTick
        var lane = Lane(); lane.window.reserveCapacity(3)
        lanes = Array(repeating: lane, count: inputs)
    }

    public var inputCount: Int { lanes.count }

    /// Time of output tick k: k / fps, exact.
    public func time(ofTick k: Int64) -> Rational { frameRate.inverse * k }

    public mutating func push(_ frame: SourceFrame, payload: Payload, input: Int) {
        precondition(!lanes[input].ended, "frame pushed after the input's end")
        if lanes[input].origin == nil {
            lanes[input].origin = frame.pts
            lanes[input].rounding = min(frame.pts.timeBase * Rational(1, 2), Rational(1, 1000))
        }
        let origin = lanes[input].origin!
        let time = frame.pts.rational - origin.rational
        if mode == .time, let last = lanes[input].window.last, time < last.time {
            backwardJumps.append(BackwardJump(input: input, last: last.frame, refused: frame))
            lanes[input].ended = true
            refused.append(payload)
            return
        }
        lanes[input].window.append(Entry(frame: frame, time: time, payload: payload))
    }

    public mutating func finish(input: Int) { lanes[input].ended = true }

    /// The pts of the input's first frame, for a segment whose first pushed frame is a later one
    /// (times count from the input's own start, as in the single pass). Before any push.
    public mutating func setOrigin(_ pts: Timestamp, input: Int) {
        precondition(lanes[input].origin == nil, "origin set twice")
        lanes[input].origin = pts
        lanes[input].rounding = min(pts.timeBase * Rational(1, 2), Rational(1, 1000))
    }

    /// The frame input `i` gives to the tick just emitted.
    public func chosen(_ i: Int) -> Payload { lanes[i].window[0].payload }
    public func chosenFrame(_ i: Int) -> SourceFrame { lanes[i].window[0].frame }

    public mutating func step() -> Step {
        if emitted {
            emitted = false
            tick += 1
            if mode == .index {
                // Every chosen frame has served its one tick.
                for i in lanes.indices { pendingRelease.append(i) }
            }
        }
        if let payload = refused.popLast() { return .release(payload) }
        if let i = pendingRelease.popLast() {
            return .release(lanes[i].window.removeFirst().payload)
        }
        if let end = ended { return end }
        let t = time(ofTick: tick)
        for i in lanes.indices {
            switch decide(i, at: t) {
            case .ready: continue
            case .need: return .need(input: i)
            case .release: return .release(lanes[i].window.removeFirst().payload)
            case .ended:
                let step = Step.end(input: i, tick: tick)
                ended = step
                return step
            }
        }
        emitted = true
        return .emit(tick: tick)
    }

    /// After the end, hands back every payload still held (call until nil).
    public mutating func drain() -> Payload? {
        if let payload = refused.popLast() { return payload }
        for i in lanes.indices where !lanes[i].window.isEmpty {
            return lanes[i].window.removeFirst().payload
        }
        return nil
    }

    private var pendingRelease: [Int] = []
    /// Frames not taken (after a backward jump), handed back by the next `step()`.
    private var refused: [Payload] = []
    private var ended: Step?

    private enum Decision { case ready, need, release, ended }

    private func decide(_ i: Int, at t: Rational) -> Decision {
        let lane = lanes[i]
        guard let head = lane.window.first else { return lane.ended ? .ended : .need }
        switch mode {
        case .index:
            return .ready
        case .time:
            if lane.window.count >= 2 {
                // A later frame is already due: the head is history.
                return lane.window[1].time <= t + lane.rounding ? .release : .ready
            }
            if !lane.ended { return .need }  // one frame past t must be seen before choosing
            // The head is the input's last frame: it covers [time, time + duration). Without a
            // duration, the input's mean step (rounded timestamps make the last step unreliable).
            let duration = head.frame.duration
                ?? (head.frame.index > 0 ? head.time * Rational(1, Int64(head.frame.index)) : frameRate.inverse)
            return t + lane.rounding < head.time + duration ? .ready : .ended
        }
    }
}
