/// How output tick k (at t = k / fps, from 0) picks one frame from each input.
///
///   .index  the k-th frame of every input, in presentation order, whatever its timestamp
///           (one frame from each reader per writer tick).
///   .time   from each input, the frame on screen at that instant: the last frame whose time
///           (pts minus that input's first pts, mapped through the input's `InputClock`) is
///           <= t. A frame may serve several ticks; frames between ticks are skipped.
///           A stored pts is the true time rounded to the time base (Matroska: 1 ms, so a
///           30 fps frame at 66.67 ms is stored as 67 ms): a frame counts as due when its time
///           is within half a time-base unit (at most 1 ms) of t. Still exact arithmetic.
///
/// Before its first frame an input has nothing to give, so nothing is emitted until every
/// input has delivered one (no black start). After its end an input is never repeated
/// (no frozen layer): the output ends at the first tick some input cannot serve.
///   .index  an input with no k-th frame ends the output;
///   .time   an input ends at its last frame's time plus that frame's duration (or where its
///           container says its stream ends, an edit list's end, if that is earlier), or at its
///           trim's end. An input whose timestamps go back (two recordings joined, a wrapped
///           clock) ends at the jump: the frame after it is not taken, and `backwardJumps`
///           says where, so the caller can warn. The time axis has no answer for "which frame
///           is on screen" once it repeats, and a frame-exact tool must not guess.
/// Three exceptions, each chosen by name:
///   - a still (an input that ends after exactly one frame: a JPEG, PNG, WebP, a one-frame
///     movie) is shown at every tick, in both modes; if every input is a still, one tick is
///     emitted;
///   - `SyncPlacement.holdLast`: an input past its end shows its last frame (`Presence.held`);
///     the output ends when every input that is not a still has ended;
///   - `SyncPlacement.coverage == .longest` (time sync): the output runs from the earliest
///     start to the latest end, and an input outside its own span is absent (`Presence.absent`).
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
        /// Every input has its frame for `tick` (or is absent from it): read them with
        /// `chosen(_:)` / `presence(_:)`; the next `step()` moves on to the following tick.
        case emit(tick: Int64)
        /// The output ends before `tick`: this input has no frame for it (or, under `holdLast`
        /// or `longest`, every input has ended; `input` is the last to end).
        case end(input: Int, tick: Int64)
    }

    /// What an input gives the tick just emitted.
    public enum Presence: Equatable, Sendable {
        /// Its frame on screen at the tick (a still's one frame included).
        case shown
        /// Its last frame, past its end (`holdLast`).
        case held
        /// Nothing: it has not started yet or has ended (`longest`). The caller draws it empty.
        case absent
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
    public let placement: SyncPlacement
    /// The reference time of output time 0 (`placement.start`).
    public let start: Rational
    public private(set) var tick: Int64 = 0
    public private(set) var backwardJumps: [BackwardJump] = []

    private struct Entry { var frame: SourceFrame; var time: Rational; var payload: Payload }
    private struct InputState {
        var window: [Entry] = []
        var origin: Timestamp?
        /// Half a time-base unit, at most 1 ms: how far a stored time may be from the true one.
        var rounding = Rational(0, 1)
        var ended = false
        /// Frames taken into the window so far.
        var pushed = 0
        /// Where the container says the stream ends (an edit list's end), if it says.
        var streamEnd: Timestamp?
        /// Index sync: the head has served a tick already.
        var served = false
        var presence = Presence.shown
        /// Time sync: its trim ended before its frames did; it is never read again.
        var idle = false
        /// It ended at a backward jump (never a still, even after one frame).
        var jumped = false
    }
    private var states: [InputState]
    private let firstTick: Int64
    private var emitted = false

    /// `startTick`: a segment render's first tick (its global output index; the inputs' frames
    /// pushed start there, and their origins are given with `setOrigin`). `placement`: where
    /// each input lies in time (time sync; under index sync only `holdLast` applies).
    /// `start`: the reference time of output time 0, when not `placement.start` (a concat places
    /// each clip at its own output time on one clock from 0).
    public init(
        mode: SyncMode, inputs: Int, frameRate: Rational, startTick: Int64 = 0, placement: SyncPlacement? = nil,
        start: Rational? = nil
    ) {
        precondition(inputs > 0 && frameRate.num > 0 && startTick >= 0)
        let placement = placement ?? .together(inputs)
        precondition(placement.clocks.count == inputs, "one clock per input")
        self.mode = mode
        self.frameRate = frameRate
        self.placement = placement
        self.start = mode == .time ? start ?? placement.start : Rational(0, 1)
        tick = startTick
        firstTick = startTick
        var state = InputState(); state.window.reserveCapacity(3)
        states = Array(repeating: state, count: inputs)
    }

    public var inputCount: Int { states.count }

    /// Time of output tick k: k / fps, exact.
    public func time(ofTick k: Int64) -> Rational { frameRate.inverse * k }

    /// Input i's own time (from its first frame) at output tick k, through its clock.
    public func inputTime(ofTick k: Int64, input i: Int) -> Rational {
        let t = time(ofTick: k)
        return placement.clocks[i].inputTime(atReference: start.adding(t) ?? start + t)
    }

    public mutating func push(_ frame: SourceFrame, payload: Payload, input: Int) {
        precondition(!states[input].ended, "frame pushed after the input's end")
        if states[input].origin == nil {
            states[input].origin = frame.pts
            states[input].rounding = min(frame.pts.timeBase * Rational(1, 2), Rational(1, 1000))
        }
        let origin = states[input].origin!
        let time = frame.pts.rational - origin.rational
        if mode == .time, let last = states[input].window.last, time < last.time {
            backwardJumps.append(BackwardJump(input: input, last: last.frame, refused: frame))
            states[input].ended = true
            states[input].jumped = true
            refused.append(payload)
            return
        }
        states[input].pushed += 1
        states[input].window.append(Entry(frame: frame, time: time, payload: payload))
    }

    public mutating func finish(input: Int) { states[input].ended = true }

    /// The pts of the input's first frame, for a segment whose first pushed frame is a later one
    /// (times count from the input's own start, as in the single pass). Before any push.
    public mutating func setOrigin(_ pts: Timestamp, input: Int) {
        precondition(states[input].origin == nil, "origin set twice")
        states[input].origin = pts
        states[input].rounding = min(pts.timeBase * Rational(1, 2), Rational(1, 1000))
    }

    /// Where the input's container says its stream ends (start time plus duration: an MP4 edit
    /// list can end the last frame early). Used only when it falls inside the last frame.
    public mutating func setStreamEnd(_ end: Timestamp, input: Int) { states[input].streamEnd = end }

    /// The frame input `i` gives to the tick just emitted (not for an absent input).
    public func chosen(_ i: Int) -> Payload { states[i].window[0].payload }
    public func chosenFrame(_ i: Int) -> SourceFrame { states[i].window[0].frame }
    /// What input `i` gives the tick just emitted.
    public func presence(_ i: Int) -> Presence { states[i].presence }
    /// The payload input `i` gives the tick just emitted, nil if it is absent.
    public func chosenIfPresent(_ i: Int) -> Payload? { states[i].presence == .absent ? nil : states[i].window[0].payload }
    /// The pts until which the chosen frame of input `i` is on screen (the next frame's, or the
    /// input's end), when time sync knows it; nil for a still, under index sync, or if absent.
    public func until(_ i: Int) -> Timestamp? {
        let state = states[i]
        guard mode == .time, state.presence != .absent, !isStill(state), let head = state.window.first else { return nil }
        if state.window.count >= 2 { return state.window[1].frame.pts }
        guard state.ended, let origin = state.origin, let end = endTime(state) else { return nil }
        return Timestamp(Rational.rescale(1, from: origin.rational + end, to: head.frame.pts.timeBase), head.frame.pts.timeBase)
    }
    /// Whether input `i` will never be asked for another frame although it has not ended (its
    /// trim ended first): the caller may stop reading its pictures. Its last frame may be held.
    public func isIdle(_ i: Int) -> Bool { states[i].idle }
    /// Whether input `i` is a still (it ended after one frame); known once it has ended.
    public func isStill(_ i: Int) -> Bool { isStill(states[i]) }
    /// The pts of input i's first frame, once it has one.
    public func origin(_ i: Int) -> Timestamp? { states[i].origin }
    /// Input i's end in its own time (its last frame's end, or its stream's end), once it has
    /// ended; nil before.
    public func endTime(input i: Int) -> Rational? { states[i].ended ? endTime(states[i]) : nil }

    public mutating func step() -> Step {
        if emitted {
            emitted = false
            tick += 1
            if mode == .index {
                for i in states.indices where !states[i].window.isEmpty { states[i].served = true }
            }
        }
        if let payload = refused.popLast() { return .release(payload) }
        if let end = ended { return end }
        var allPast = true, anyMoving = false, lastToEnd: (input: Int, at: Rational)?
        for i in states.indices {
            switch decide(i) {
            case .need: return .need(input: i)
            case .release:
                states[i].served = false
                return .release(states[i].window.removeFirst().payload)
            case .idle:
                // Decided again at once: now past its end.
                states[i].idle = true
                return step()
            case .ended:
                let step = Step.end(input: i, tick: tick)
                ended = step
                return step
            case .present(let presence, let past):
                states[i].presence = presence
                if isStill(states[i]) { continue }
                anyMoving = true
                if past {
                    var end = endTime(states[i]) ?? Rational(0, 1)
                    if let trimEnd = placement.clocks[i].trim.end, trimEnd < end { end = trimEnd }
                    let at = placement.clocks[i].referenceTime(ofInput: end)
                    if lastToEnd == nil || at >= lastToEnd!.at { lastToEnd = (i, at) }
                } else {
                    allPast = false
                }
            }
        }
        // Past every input's end (held or absent), or every input a still and one tick written.
        if anyMoving ? allPast : tick > firstTick {
            let step = Step.end(input: lastToEnd?.input ?? 0, tick: tick)
            ended = step
            return step
        }
        emitted = true
        return .emit(tick: tick)
    }

    /// After the end, hands back every payload still held (call until nil).
    public mutating func drain() -> Payload? {
        if let payload = refused.popLast() { return payload }
        for i in states.indices where !states[i].window.isEmpty {
            return states[i].window.removeFirst().payload
        }
        return nil
    }

    /// Frames not taken (after a backward jump), handed back by the next `step()`.
    private var refused: [Payload] = []
    private var ended: Step?

    private enum Decision {
        case need, release, idle, ended
        /// The input gives this tick something; `past`: it is past its end (held or absent).
        case present(Presence, past: Bool)
    }

    private func isStill(_ state: InputState) -> Bool { state.ended && state.pushed == 1 && !state.jumped }

    /// The end of an ended input in its own time: its last frame's time plus its duration (without
    /// one, the input's mean step; rounded timestamps make the last step unreliable), or where
    /// its stream ends if that is inside the last frame.
    private func endTime(_ state: InputState) -> Rational? {
        guard let head = state.window.last else { return nil }
        let duration =
            head.frame.duration
            ?? (head.frame.index > 0 ? head.time * Rational(1, Int64(head.frame.index)) : frameRate.inverse)
        var end = head.time + duration
        if let s = state.streamEnd, let origin = state.origin {
            let streamEnd = s.rational - origin.rational
            if streamEnd > head.time && streamEnd < end { end = streamEnd }
        }
        return end
    }

    /// What an input past its end does: shows its last frame, is absent, or ends the output.
    private func pastEnd(_ state: InputState) -> Decision {
        if placement.holdLast { return .present(.held, past: true) }
        if mode == .time && placement.coverage == .longest { return .present(.absent, past: true) }
        return .ended
    }

    private func decide(_ i: Int) -> Decision {
        let state = states[i]
        guard !state.window.isEmpty else { return state.ended ? .ended : .need }
        switch mode {
        case .index:
            guard state.served else { return .present(.shown, past: false) }
            if state.window.count >= 2 { return .release }
            if !state.ended { return .need }
            if isStill(state) { return .present(.shown, past: false) }
            return pastEnd(state)
        case .time:
            let clock = placement.clocks[i]
            let t = inputTime(ofTick: tick, input: i) + state.rounding
            if let end = clock.trim.end, t >= end {
                // Past the trim's end: no frame is read any more.
                return state.ended || state.idle ? pastEnd(state) : .idle
            }
            // One frame past the head must be seen (or the end) before choosing.
            if state.window.count < 2 && !state.ended { return .need }
            if isStill(state) { return .present(.shown, past: false) }
            if placement.coverage == .longest && t < clock.trim.start { return .present(.absent, past: false) }
            if state.window.count >= 2 {
                // A later frame is already due: the head is history.
                return state.window[1].time <= t ? .release : .present(.shown, past: false)
            }
            // The head is the input's last frame: it covers [time, end).
            if let end = endTime(state), t < end { return .present(.shown, past: false) }
            return pastEnd(state)
        }
    }
}
