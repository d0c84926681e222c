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

    /// Throws a `CompositeOptionsError` (or `OutputOptionsError`, `KeyerError`, `CutError`)
    /// whose line is one sentence naming the option and the cause.
    public func check() throws {
        let range = blend.inputRange
        guard range.contains(inputs.count) else {
            throw CompositeOptionsError.inputCount(blend: blend.rawValue, lowest: range.lowerBound, highest: range.upperBound, got: inputs.count)
        }
        try Self.check(size: size, frameRate: frameRate, signal: signal, codec: encode.codec)
        try Self.check(codec: encode.codec, signal: signal, output: output, segments: frames != nil)
        guard (0...1).contains(similarity) else { throw CompositeOptionsError.notAFraction(option: "--similarity", got: similarity) }
        guard (0...1).contains(smoothness) else { throw CompositeOptionsError.notAFraction(option: "--smoothness", got: smoothness) }
        try checkKeyer()
        try checkMatte()
        try checkSegment()
        try checkSignal()
        if deinterlace == .field && isCut {
            throw CompositeOptionsError.fieldDeinterlaceInCut(byTime: cut != nil)
        }
        if let weights {
            guard weights.count == inputs.count else {
                throw CompositeOptionsError.weightCount(expected: inputs.count, given: weights.count)
            }
            if let bad = weights.first(where: { !$0.isFinite }) { throw CompositeOptionsError.weightNotFinite(bad) }
            guard weights.allSatisfy({ $0 >= 0 }), weights.contains(where: { $0 > 0 }) else {
                throw CompositeOptionsError.weightsNotPositive
            }
            guard weights.reduce(0, +).isFinite else { throw CompositeOptionsError.weightsTooLarge }
        }
        if let gains {
            guard gains.count == inputs.count else {
                throw CompositeOptionsError.gainCount(expected: inputs.count, given: gains.count)
            }
            guard gains.allSatisfy({ (0...16).contains($0) }) else { throw CompositeOptionsError.gainOutOfRange }
        }
        try checkPlacement()
        try checkGrid()
        try checkKeyPlacement()
        if let n = audioFrom {
            guard audio else { throw CompositeOptionsError.audioFromWithAudioNone }
            try Self.check(audioFrom: Int128(n) + 1, inputs: inputs.count)
        }
        if let loudness {
            guard audio else { throw CompositeOptionsError.loudnessWithAudioNone }
            guard loudness.isFinite && Self.loudnessTargets.contains(loudness) else {
                throw CompositeOptionsError.loudnessOutOfRange(loudness)
            }
        }
        try Self.check(stallTimeout: stallTimeout)
        try Self.check(encode: encode)
    }

    /// `--audio-from` as the user numbers inputs (1 is the first), wide enough that no Int a
    /// caller gives overflows on the way to the sentence.
    public static func check(audioFrom oneBased: Int128, inputs: Int) throws {
        guard oneBased < 1 || oneBased > Int128(inputs) else { return }
        throw CompositeOptionsError.audioFromOutOfRange(oneBased, inputs: inputs)
    }

    /// The largest offset or trim point: a day, far past any recording yet inside every clock's arithmetic.
    public static let longestOffset = Rational(86_400, 1)
    /// The largest clock drift: 1%, twenty times a poor camera crystal's.
    public static let largestDriftPpm = 10_000.0

    /// --offsets, --drift, --trim, --longest: time sync's placement of the inputs.
    func checkPlacement() throws {
        if let clocks {
            guard clocks.count == inputs.count else {
                throw CompositeOptionsError.clockCount(expected: inputs.count, given: clocks.count)
            }
            if let first = clocks.first {
                if first.offset != Rational(0, 1) {
                    throw CompositeOptionsError.firstOffsetNotZero(got: InputClock.text(first.offset))
                }
                if first.driftPpm != 0 {
                    throw CompositeOptionsError.firstDriftNotZero(got: first.driftPpm)
                }
            }
            for (i, c) in clocks.enumerated() {
                guard c.offset.magnitudeAtMost(Self.longestOffset) else {
                    throw CompositeOptionsError.offsetTooLarge(input: i, limit: "\(Self.longestOffset.num)", got: InputClock.text(c.offset))
                }
                guard c.driftPpm.isFinite, abs(c.driftPpm) <= Self.largestDriftPpm else {
                    throw CompositeOptionsError.driftOutOfRange(input: i, limit: Int(Self.largestDriftPpm), got: c.driftPpm)
                }
                let t = c.trim
                guard t.start >= Rational(0, 1), t.start.magnitudeAtMost(Self.longestOffset), t.end.map({ $0.magnitudeAtMost(Self.longestOffset) }) ?? true else {
                    throw CompositeOptionsError.trimOutOfRange(input: i, limit: "\(Self.longestOffset.num)", got: Self.text(t))
                }
                if let end = t.end, end <= t.start {
                    throw CompositeOptionsError.trimEndsBeforeStart(input: i, got: Self.text(t))
                }
            }
        }
        if clocksFromSound {
            guard inputs.count >= 2 else { throw CompositeOptionsError.syncAudioNeedsTwoInputs }
            if let clocks, clocks.contains(where: { $0.offset != Rational(0, 1) || $0.driftPpm != 0 }) {
                throw CompositeOptionsError.syncAudioWithOffsets
            }
            if sync == .index { throw CompositeOptionsError.syncAudioWithIndexSync }
        }
        if sync == .index && placesInputsInTime {
            throw CompositeOptionsError.placementNeedsTimeSync
        }
        if frames != nil && cut != nil {
            throw CompositeOptionsError.framesAndCut
        }
        if isCut && placesInputsInTime {
            throw CompositeOptionsError.cutPlacesInputs(option: cutOption, byTime: cut != nil)
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
        guard blend == .chromakey else { throw CompositeOptionsError.keyPlacementNeedsChromakey }
        if let problem = keyPlacement.problem { throw CompositeOptionsError.keyPlacement(problem: problem) }
    }

    /// --layout, --cell-fit, --border, --labels and the pip options against the blend.
    func checkGrid() throws {
        let placed = blend.placesInputs
        if let shape = grid.layout {
            guard blend == .grid else { throw CompositeOptionsError.layoutNeedsGrid }
            guard (1...Self.largestGridSide).contains(shape.rows), (1...Self.largestGridSide).contains(shape.columns) else {
                throw CompositeOptionsError.layoutOutOfRange(rows: shape.rows, columns: shape.columns, limit: Self.largestGridSide)
            }
            guard shape.cells >= inputs.count else {
                throw CompositeOptionsError.layoutTooFewCells(rows: shape.rows, columns: shape.columns, cells: shape.cells, inputs: inputs.count)
            }
        }
        if grid.fit != .fit && !placed { throw CompositeOptionsError.needsPlacingBlend(option: "--cell-fit", verb: "needs") }
        if grid.border != 0 {
            guard placed else { throw CompositeOptionsError.needsPlacingBlend(option: "--border", verb: "needs") }
            guard (0...Self.widestBorder).contains(grid.border) else {
                throw CompositeOptionsError.borderOutOfRange(limit: Self.widestBorder, got: grid.border)
            }
        }
        if let labels = grid.labels {
            guard placed else { throw CompositeOptionsError.needsPlacingBlend(option: "--labels and --label", verb: "need") }
            guard labels.count <= inputs.count else { throw CompositeOptionsError.tooManyLabels(labels: labels.count, inputs: inputs.count) }
            if let (i, long) = labels.enumerated().first(where: { $0.1.unicodeScalars.count > Self.longestLabel }) {
                throw CompositeOptionsError.labelTooLong(label: i, length: long.unicodeScalars.count, limit: Self.longestLabel, side: Self.largestSide)
            }
        }
        if grid.pip != GridSpec.PiP() {
            guard blend == .pip else { throw CompositeOptionsError.pipNeedsPipBlend }
            guard grid.pip.size.isFinite && GridSpec.PiP.sizes.contains(grid.pip.size) else {
                throw CompositeOptionsError.pipSizeOutOfRange(lowest: GridSpec.PiP.sizes.lowerBound, highest: GridSpec.PiP.sizes.upperBound, got: grid.pip.size)
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
                throw CompositeOptionsError.loudnessFromPipe(input: i, path: path)
            }
        }
    }

    /// --size and --fps, for every command that takes them (composite, concat); the size also
    /// as the output's codec can take it (`signal`: HDR is HEVC).
    public static func check(size: Size?, frameRate: Rational?, signal: WorkingSignal = .sdr, codec: VideoCodec? = nil) throws {
        if let size {
            if size.width < 2 || size.height < 2 || size.width % 2 != 0 || size.height % 2 != 0 {
                throw OutputOptionsError.sizeNotEven(size: "\(size)")
            }
            if size.width > largestSide || size.height > largestSide {
                throw OutputOptionsError.sizeTooLarge(size: "\(size)", limit: largestSide)
            }
            if let problem = EncodeSettings.problem(encoding: size, as: signal, codec: codec) {
                throw OutputOptionsError.sizeNotEncodable(size: "\(size)", problem: problem)
            }
        }
        if let frameRate {
            guard frameRate.num > 0 else { throw OutputOptionsError.frameRateNotPositive("\(frameRate)") }
            try checkFraction(frameRate)
            guard frameRates.contains(frameRate) else { throw OutputOptionsError.frameRateOutOfRange("\(frameRate)") }
        }
    }

    /// FFmpeg keeps a frame rate as a fraction of two 32-bit numbers (AVRational): a rate whose
    /// parts do not fit (4294967296/4294967295, about 1 fps) trapped when handed to the encoder.
    public static func checkFraction(_ frameRate: Rational) throws {
        guard frameRate.fitsInt32 else {
            throw OutputOptionsError.frameRateTooFine("\(frameRate)", limit: Int32.max)
        }
    }

    public static func check(stallTimeout: Double) throws {
        guard stallTimeout > 0 && stallTimeout <= longestStallTimeout else {
            throw OutputOptionsError.stallTimeoutOutOfRange(limit: Int(longestStallTimeout), got: stallTimeout)
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
            throw OutputOptionsError.codecWithoutHDR(codec: chosen.rawValue, hdr: signal.rawValue)
        }
        if chosen.needsMOV, let output, OutputPath.container(for: output) != "mov" {
            throw OutputOptionsError.codecNeedsMOV(codec: chosen.rawValue, name: chosen.displayName, output: output)
        }
        if !chosen.hasRateFactor {
            if rateFactorGiven {
                throw OutputOptionsError.rateFactorWithoutCRF(codec: chosen.rawValue, name: chosen.displayName)
            }
            if presetGiven { throw OutputOptionsError.presetWithoutPresets(codec: chosen.rawValue, name: chosen.displayName) }
        }
        if segments && !chosen.rendersSegments && codec != nil {
            throw OutputOptionsError.codecInSegments(codec: chosen.rawValue)
        }
    }

    /// --crf and --preset, for every command that encodes.
    public static func check(encode: EncodeSettings) throws {
        guard (0...51).contains(encode.crf) else { throw OutputOptionsError.rateFactorOutOfRange(encode.crf) }
        guard presets.contains(encode.preset) else {
            throw OutputOptionsError.notAPreset(encode.preset, presets: presets)
        }
    }
}

extension CompositeOptions {
    /// What the HDR output supports: the blends (on 10-bit pictures) and the keyers; not what
    /// works on the SDR working signal's 8-bit pictures (filters, the snake, a matte movie) nor
    /// segment renders (untested with HEVC joins).
    func checkSignal() throws {
        guard signal.isHDR else { return }
        let hdr = signal.rawValue
        if filter != nil { throw CompositeOptionsError.hdrWithFilters(hdr: hdr) }
        if snake != nil { throw CompositeOptionsError.hdrWithSnake(hdr: hdr) }
        if matte != nil { throw CompositeOptionsError.hdrWithMatte(hdr: hdr) }
        // A cut by time is one file; segments are joined, and the join is H.264's.
        if frames != nil && encode.codec == nil { throw CompositeOptionsError.hdrInSegments(hdr: hdr) }
        if grid.border != 0 || grid.labels != nil {
            throw CompositeOptionsError.hdrWithDrawing(hdr: hdr)
        }
    }
}
