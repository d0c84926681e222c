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
            let wanted =
                range.lowerBound == range.upperBound
                ? (blend == .chromakey ? "exactly 2 inputs (FOREGROUND BACKGROUND)" : "exactly \(range.lowerBound) input\(range.lowerBound == 1 ? "" : "s")")
                : "\(range.lowerBound) to \(range.upperBound) inputs"
            throw JobError("--blend \(blend.rawValue) takes \(wanted); got \(inputs.count).")
        }
        try Self.check(size: size, frameRate: frameRate, signal: signal, codec: encode.codec)
        try Self.check(codec: encode.codec, signal: signal, output: output, segments: frames != nil)
        guard (0...1).contains(similarity) else { throw JobError("--similarity must be between 0 and 1; got \(similarity).") }
        guard (0...1).contains(smoothness) else { throw JobError("--smoothness must be between 0 and 1; got \(smoothness).") }
        try checkKeyer()
        try checkMatte()
        try checkSegment()
        try checkSignal()
        if deinterlace == .field && isCut {
            throw JobError(
                "--deinterlace field cannot be combined with \(cut != nil ? "--from/--to" : "--frames or --segments"): a \(cut != nil ? "cut" : "segment") would not start on the field the single pass shows there."
            )
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
        try checkPlacement()
        try checkGrid()
        try checkKeyPlacement()
        if let n = audioFrom {
            guard audio else { throw JobError("--audio-from and --audio none contradict each other: choose one.") }
            try Self.check(audioFrom: Int128(n) + 1, inputs: inputs.count)
        }
        if let loudness {
            guard audio else { throw JobError("--loudness needs sound, and --audio none writes none.") }
            guard loudness.isFinite && Self.loudnessTargets.contains(loudness) else {
                throw JobError("--loudness must be r128 (-23 LUFS) or a target between -70 and -5 LUFS; got \(loudness).")
            }
        }
        try Self.check(stallTimeout: stallTimeout)
        try Self.check(encode: encode)
    }

    /// `--audio-from` as the user numbers inputs (1 is the first), wide enough that no Int a
    /// caller gives overflows on the way to the sentence.
    public static func check(audioFrom oneBased: Int128, inputs: Int) throws {
        guard oneBased < 1 || oneBased > Int128(inputs) else { return }
        throw JobError("--audio-from \(oneBased): there \(inputs == 1 ? "is 1 input" : "are \(inputs) inputs"); give 1 to \(inputs).")
    }

    /// The largest offset or trim point: a day, far past any recording yet inside every clock's arithmetic.
    public static let longestOffset = Rational(86_400, 1)
    /// The largest clock drift: 1%, twenty times a poor camera crystal's.
    public static let largestDriftPpm = 10_000.0

    /// --offsets, --drift, --trim, --longest: time sync's placement of the inputs.
    func checkPlacement() throws {
        if let clocks {
            guard clocks.count == inputs.count else {
                throw JobError("--offsets, --drift and --trim need one value per input: \(inputs.count) expected, \(clocks.count) given.")
            }
            if let first = clocks.first {
                if first.offset != Rational(0, 1) {
                    throw JobError("--offsets: the first input is the clock the others are placed on, so its offset must be 0; got \(InputClock.text(first.offset)).")
                }
                if first.driftPpm != 0 {
                    throw JobError("--drift: the first input is the clock the others are measured against, so its drift must be 0; got \(first.driftPpm).")
                }
            }
            for (i, c) in clocks.enumerated() {
                guard c.offset.magnitudeAtMost(Self.longestOffset) else {
                    throw JobError("--offsets: input \(i + 1)'s offset must be within \(Self.longestOffset.num) s; got \(InputClock.text(c.offset)).")
                }
                guard c.driftPpm.isFinite, abs(c.driftPpm) <= Self.largestDriftPpm else {
                    throw JobError("--drift: input \(i + 1)'s drift must be between -\(Int(Self.largestDriftPpm)) and \(Int(Self.largestDriftPpm)) ppm; got \(c.driftPpm).")
                }
                let t = c.trim
                guard t.start >= Rational(0, 1), t.start.magnitudeAtMost(Self.longestOffset), t.end.map({ $0.magnitudeAtMost(Self.longestOffset) }) ?? true else {
                    throw JobError("--trim: input \(i + 1)'s trim must lie between 0 and \(Self.longestOffset.num) s of its own time; got \(Self.text(t)).")
                }
                if let end = t.end, end <= t.start {
                    throw JobError("--trim: input \(i + 1)'s trim must end after it starts; got \(Self.text(t)).")
                }
            }
        }
        if clocksFromSound {
            guard inputs.count >= 2 else { throw JobError("--sync audio places inputs by the first one's sound, and there is only one input.") }
            if let clocks, clocks.contains(where: { $0.offset != Rational(0, 1) || $0.driftPpm != 0 }) {
                throw JobError("--sync audio finds the offsets and drifts from the sound; --offsets and --drift give them: choose one.")
            }
            if sync == .index { throw JobError("--sync audio places inputs in time; it cannot be combined with index sync.") }
        }
        if sync == .index && placesInputsInTime {
            throw JobError("--offsets, --drift, --trim and --longest need time sync (--sync time or audio): index sync takes frame k of every input, whatever its time.")
        }
        if frames != nil && cut != nil {
            throw JobError("--frames and --from/--to both choose the output's frames; give one.")
        }
        if isCut && placesInputsInTime {
            throw JobError(
                "\(cutOption) cannot be combined with --sync audio, --offsets, --drift, --trim or --longest: a \(cut != nil ? "cut" : "segment render") places inputs only from their first frames.")
        }
    }

    /// "1.5:9.25", ":20", "3:" as the option is written.
    static func text(_ t: InputClock.Trim) -> String {
        (t.start == Rational(0, 1) ? "" : InputClock.text(t.start)) + ":" + (t.end.map(InputClock.text) ?? "")
    }

    /// The largest grid side (`--layout`), and the widest border.
    public static let largestGridSide = 16
    public static let widestBorder = 64
    /// The longest label, in characters: what the widest canvas shows in the smallest font
    /// (one glyph per character). A label is cut to its cell's width; a longer one is a mistake
    /// (a file's contents given as a label), refused before anything is read.
    public static let longestLabel = largestSide / BitmapFont.advance

    /// --fg-scale, --fg-position and --bg-fit: chromakey's, each in its range.
    func checkKeyPlacement() throws {
        guard keyPlacement != KeyPlacement() else { return }
        guard blend == .chromakey else { throw JobError("--fg-scale, --fg-position and --bg-fit need --blend chromakey.") }
        if let problem = keyPlacement.problem { throw JobError(problem) }
    }

    /// --layout, --cell-fit, --border, --labels and the pip options against the blend.
    func checkGrid() throws {
        let placed = blend.placesInputs
        if let shape = grid.layout {
            guard blend == .grid else { throw JobError("--layout needs --blend grid (quad is always 2x2; pip places its insets itself).") }
            guard (1...Self.largestGridSide).contains(shape.rows), (1...Self.largestGridSide).contains(shape.columns) else {
                throw JobError("--layout \(shape.rows)x\(shape.columns): rows and columns must be between 1 and \(Self.largestGridSide).")
            }
            guard shape.cells >= inputs.count else {
                throw JobError("--layout \(shape.rows)x\(shape.columns) has \(shape.cells) cell\(shape.cells == 1 ? "" : "s") for \(inputs.count) inputs.")
            }
        }
        if grid.fit != .fit && !placed { throw JobError("--cell-fit needs --blend grid, quad or pip.") }
        if grid.border != 0 {
            guard placed else { throw JobError("--border needs --blend grid, quad or pip.") }
            guard (0...Self.widestBorder).contains(grid.border) else {
                throw JobError("--border must be between 0 and \(Self.widestBorder) pixels; got \(grid.border).")
            }
        }
        if let labels = grid.labels {
            guard placed else { throw JobError("--labels and --label need --blend grid, quad or pip.") }
            guard labels.count <= inputs.count else { throw JobError("--label is given \(labels.count) times for \(inputs.count) inputs.") }
            if let (i, long) = labels.enumerated().first(where: { $0.1.unicodeScalars.count > Self.longestLabel }) {
                throw JobError(
                    "--label \(i + 1) is \(long.unicodeScalars.count) characters long; a label is at most \(Self.longestLabel) (the widest canvas, \(Self.largestSide) pixels, shows no more)."
                )
            }
        }
        if grid.pip != GridSpec.PiP() {
            guard blend == .pip else { throw JobError("--pip-corner and --pip-size need --blend pip.") }
            guard grid.pip.size.isFinite && GridSpec.PiP.sizes.contains(grid.pip.size) else {
                throw JobError("--pip-size must be between \(GridSpec.PiP.sizes.lowerBound) and \(GridSpec.PiP.sizes.upperBound) (a share of the canvas width); got \(grid.pip.size).")
            }
        }
    }

    /// Integrated loudness targets `--loudness` takes, LUFS: from R128's gate to louder than
    /// any broadcast or streaming norm (-14 to -24).
    public static let loudnessTargets = -70.0 ... -5.0

    /// `--loudness` reads the inputs' sound once before the job: a pipe can be read only once.
    func checkLoudnessInputs() throws {
        guard loudness != nil else { return }
        for (i, path) in inputs.enumerated() {
            var st = stat()
            if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO {
                throw JobError("--loudness measures the sound before the job, and input \(i + 1) (\(path)) is a pipe, which can be read only once.")
            }
        }
    }

    /// --size and --fps, for every command that takes them (composite, concat); the size also
    /// as the output's codec can take it (`signal`: HDR is HEVC).
    public static func check(size: Size?, frameRate: Rational?, signal: WorkingSignal = .sdr, codec: VideoCodec? = nil) throws {
        if let size {
            if size.width < 2 || size.height < 2 || size.width % 2 != 0 || size.height % 2 != 0 {
                throw JobError("--size \(size): width and height must be even numbers of at least 2.")
            }
            if size.width > largestSide || size.height > largestSide {
                throw JobError("--size \(size): width and height must be at most \(largestSide).")
            }
            if let problem = EncodeSettings.problem(encoding: size, as: signal, codec: codec) { throw JobError("--size \(size): \(problem).") }
        }
        if let frameRate {
            guard frameRate.num > 0 else { throw JobError("--fps \(frameRate): the frame rate must be positive.") }
            try checkFraction(frameRate)
            guard frameRates.contains(frameRate) else { throw JobError("--fps \(frameRate): the frame rate must be between 1/1000 and 1000.") }
        }
    }

    /// FFmpeg keeps a frame rate as a fraction of two 32-bit numbers (AVRational): a rate whose
    /// parts do not fit (4294967296/4294967295, about 1 fps) trapped when handed to the encoder.
    public static func checkFraction(_ frameRate: Rational) throws {
        guard frameRate.fitsInt32 else {
            throw JobError("--fps \(frameRate): the numerator and denominator must be at most \(Int32.max) (FFmpeg keeps a frame rate as a fraction of 32-bit numbers).")
        }
    }

    public static func check(stallTimeout: Double) throws {
        guard stallTimeout > 0 && stallTimeout <= longestStallTimeout else {
            throw JobError("--stall-timeout must be a positive number of seconds, at most \(Int(longestStallTimeout)); got \(stallTimeout).")
        }
    }

    /// `--codec` against the other output options, for every command that encodes: the signal
    /// (`--hdr`), the output's container (`-o`), whether `--crf` and `--preset` were given, and
    /// segment renders (`--frames`, `--segments`). One sentence naming both options.
    public static func check(
        codec: VideoCodec?, signal: WorkingSignal, output: String?, rateFactorGiven: Bool = false, presetGiven: Bool = false, segments: Bool = false
    ) throws {
        let chosen = codec ?? VideoCodec.standard(for: signal)
        if signal.isHDR && !chosen.carriesHDR {
            throw JobError("--codec \(chosen.rawValue) cannot be combined with --hdr \(signal.rawValue): H.264 HDR is not offered; use --codec hevc, prores or dnxhr.")
        }
        if chosen.needsMOV, let output, OutputPath.container(for: output) != "mov" {
            throw JobError("--codec \(chosen.rawValue) needs a .mov output, not -o \(output): \(chosen.displayName) goes into MOV.")
        }
        if !chosen.hasRateFactor {
            if rateFactorGiven {
                throw JobError("--crf cannot be combined with --codec \(chosen.rawValue): \(chosen.displayName) has no constant rate factor (a fixed-quality intra profile).")
            }
            if presetGiven { throw JobError("--preset cannot be combined with --codec \(chosen.rawValue): \(chosen.displayName) has no encoder presets.") }
        }
        if segments && !chosen.rendersSegments && codec != nil {
            throw JobError("--codec \(chosen.rawValue) cannot be combined with --frames or --segments: segment renders are H.264 only.")
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
        // A cut by time is one file; segments are joined, and the join is H.264's.
        if frames != nil && encode.codec == nil { throw JobError("\(what) cannot be combined with --frames or --segments: segment renders are H.264 only.") }
        if grid.border != 0 || grid.labels != nil {
            throw JobError("\(what) cannot be combined with --border or --labels: they are drawn on the SDR working signal (8-bit BT.709).")
        }
    }
}
