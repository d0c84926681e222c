import Compositor
import Foundation

/// The rules every composite option value must meet, in the library so that a Swift caller gets
/// the same sentence as a person at the command line (the messages name the command-line option)
/// and a job never starts with a value that would trap half-way (a size past Int32, a timeout
/// past UInt64 nanoseconds, weights whose sum is infinite).
extension CompositeOptions {
    /// The largest canvas side: x264 and FFmpeg's image checks both stop below 2^15.
    public static let largestSide = 16384
    /// Frame rates Lockstep writes: at least one frame in 1000 s, at most 1000 per second.
    public static let frameRates = Rational(1, 1000)...Rational(1000, 1)
    /// A stage may be stuck for at most a day before the watchdog gives up on it.
    public static let longestStallTimeout = 86_400.0
    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    /// Throws a `JobError` whose text is one sentence naming the option and the cause.
    public func check() throws {
        let range = blend.inputRange
        guard range.contains(inputs.count) else {
            let wanted = range.lowerBound == range.upperBound
                ? (blend == .chromakey ? "exactly 2 inputs (FOREGROUND BACKGROUND)" : "exactly \(range.lowerBound) input\(range.lowerBound == 1 ? "" : "s")")
                : "\(range.lowerBound) to \(range.upperBound) inputs"
            throw JobError("--blend \(blend.rawValue) takes \(wanted); got \(inputs.count).")
        }
        try Self.check(size: size, frameRate: frameRate)
        guard (0...1).contains(similarity) else { throw JobError("--similarity must be between 0 and 1; got \(similarity).") }
        guard (0...1).contains(smoothness) else { throw JobError("--smoothness must be between 0 and 1; got \(smoothness).") }
        try checkKeyer()
        try checkMatte()
        try checkSegment()
        try checkSignal()
        if deinterlace == .field && frames != nil {
            throw JobError("--deinterlace field cannot be combined with --frames or --segments: a segment would not start on the field the single pass shows there.")
        }
        if let weights {
            guard weights.count == inputs.count else {
                throw JobError("--weights needs one weight per input: \(inputs.count) expected, \(weights.count) given.")
            }
            if let bad = weights.first(where: { !$0.isFinite }) { throw JobError("--weights must be finite numbers; got \(bad).") }
            guard weights.allSatisfy({ $0 >= 0 }), weights.contains(where: { $0 > 0 }) else {
                throw JobError("--weights must be zero or positive, and not all zero.")
            }
            guard weights.reduce(0, +).isFinite else { throw JobError("--weights are too large: their sum is not a finite number.") }
        }
        if let gains {
            guard gains.count == inputs.count else {
                throw JobError("--gain needs one gain per input: \(inputs.count) expected, \(gains.count) given.")
            }
            guard gains.allSatisfy({ (0...16).contains($0) }) else { throw JobError("--gain values must be between 0 and 16.") }
        }
        try Self.check(stallTimeout: stallTimeout)
        try Self.check(encode: encode)
    }

    /// --size and --fps, for every command that takes them (composite, concat).
    public static func check(size: Size?, frameRate: Rational?) throws {
        if let size {
            if size.width < 2 || size.height < 2 || size.width % 2 != 0 || size.height % 2 != 0 {
                throw JobError("--size \(size): width and height must be even numbers of at least 2.")
            }
            if size.width > largestSide || size.height > largestSide {
                throw JobError("--size \(size): width and height must be at most \(largestSide).")
            }
        }
        if let frameRate {
            guard frameRate.num > 0 else { throw JobError("--fps \(frameRate): the frame rate must be positive.") }
            guard frameRates.contains(frameRate) else { throw JobError("--fps \(frameRate): the frame rate must be between 1/1000 and 1000.") }
        }
    }

    public static func check(stallTimeout: Double) throws {
        guard stallTimeout > 0 && stallTimeout <= longestStallTimeout else {
            throw JobError("--stall-timeout must be a positive number of seconds, at most \(Int(longestStallTimeout)); got \(stallTimeout).")
        }
    }

    /// --crf and --preset, for every command that encodes.
    public static func check(encode: EncodeSettings) throws {
        guard (0...51).contains(encode.crf) else { throw JobError("--crf must be between 0 and 51; got \(encode.crf).") }
        guard presets.contains(encode.preset) else {
            throw JobError("--preset \(encode.preset) is not an x264 preset; use one of \(presets.joined(separator: ", ")).")
        }
    }
}

extension CompositeOptions {
    /// What the HDR output supports: the blends (on 10-bit pictures) and the keyers; not what
    /// works on the SDR working signal's 8-bit pictures (filters, the snake, a matte movie) nor
    /// segment renders (untested with HEVC joins).
    func checkSignal() throws {
        guard signal.isHDR else { return }
        let what = "--hdr \(signal.rawValue)"
        if filter != nil {
            throw JobError("\(what) cannot be combined with filters: they work on the SDR working signal (8-bit BT.709); filter in SDR, or composite without them.")
        }
        if snake != nil { throw JobError("\(what) cannot be combined with --snake: the snake draws on the SDR working signal (8-bit BT.709).") }
        if matte != nil { throw JobError("\(what) cannot be combined with --matte: mattes are mixed on the SDR working signal (8-bit BT.709).") }
        if frames != nil { throw JobError("\(what) cannot be combined with --frames or --segments: segment renders are H.264 only.") }
    }
}
