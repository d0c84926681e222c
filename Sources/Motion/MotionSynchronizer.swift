/// Pairs video frames with motion samples as VideoSnake's MotionSynchronizer does:
///
///   - both queues are on the video clock, in nanoseconds;
///   - the oldest frame is matched by walking motion samples oldest first with d = |t_frame - t_motion|:
///     as soon as d grows, the best so far wins (a tie goes to the later sample), so a frame
///     waits for one motion sample past its time; there is no interpolation;
///   - more than `maxQueuedFrames` frames waiting: the oldest goes with the closest sample seen;
///   - after a match, older motion samples are dropped; the matched one stays for the next frame;
///   - a frame whose closest sample is farther than `tolerance` gets no motion (never made up).
public struct MotionSynchronizer<Frame, Motion> {
    public struct Match {
        public var frame: Frame
        public var frameTime: Int64
        /// The sample paired with the frame, if one was within `tolerance`.
        public var motion: Motion?
        public var motionTime: Int64?
        /// |frame time - time of the closest sample seen|, nil when there was no sample at all.
        public var distance: Int64?
    }

    public let maxQueuedFrames: Int
    public let maxQueuedMotion: Int
    public let tolerance: Int64
    private var frames: [(time: Int64, frame: Frame)] = []
    private var motion: [(time: Int64, sample: Motion)] = []
    public private(set) var unmatched = 0

    public init(tolerance: Int64, maxQueuedFrames: Int = 5, maxQueuedMotion: Int = 10) {
        self.tolerance = tolerance; self.maxQueuedFrames = maxQueuedFrames; self.maxQueuedMotion = maxQueuedMotion
    }

    public mutating func appendFrame(_ frame: Frame, time: Int64) -> [Match] {
        frames.append((time, frame))
        return matchReady(flush: false)
    }

    public mutating func appendMotion(_ sample: Motion, time: Int64) -> [Match] {
        motion.append((time, sample))
        if motion.count > maxQueuedMotion { motion.removeFirst(motion.count - maxQueuedMotion) }
        return matchReady(flush: false)
    }

    /// No more motion will come: every waiting frame goes with the closest sample seen.
    public mutating func finish() -> [Match] { matchReady(flush: true) }

    private mutating func matchReady(flush: Bool) -> [Match] {
        var out: [Match] = []
        while let oldest = frames.first {
            var best: Int?
            var bestDistance = Int64.max
            var decided = false
            for (i, m) in motion.enumerated() {
                let d = abs(oldest.time - m.time)
                if d <= bestDistance {  // a tie goes to the later sample
                    best = i; bestDistance = d
                } else {
                    decided = true  // d grew: the best so far is the closest
                    break
                }
            }
            guard decided || flush || frames.count > maxQueuedFrames else { break }
            frames.removeFirst()
            var match = Match(frame: oldest.frame, frameTime: oldest.time, motion: nil, motionTime: nil, distance: nil)
            if let best {
                match.distance = bestDistance
                if bestDistance <= tolerance {
                    match.motion = motion[best].sample
                    match.motionTime = motion[best].time
                }
                motion.removeFirst(best)  // keep the matched one: the next frame may reuse it
            }
            if match.motion == nil { unmatched += 1 }
            out.append(match)
        }
        return out
    }
}
