import Compositor
import Foundation
import Media

/// Everything `lockstep concat` needs to know.
public struct ConcatOptions: Sendable {
    public var clips: [String]
    public var output: String
    /// The output stops at the last whole frame that ends at or before this many seconds.
    public var maxDuration: Rational?
    public var size: Size?
    public var frameRate: Rational?
    /// At each join the two clips' audio overlap for this long, centred on the join (equal-power
    /// crossfade, `ConcatAudio`); the video's cut and the total length are unchanged. Off: plain joins.
    public var crossfadeMs: Int?
    /// Join the compressed video by packet copy instead of decoding and encoding it.
    public var copy = false
    /// Every source frame once, in order, whatever its time (the old join): a clip at another
    /// rate plays faster or slower. Off (the default): each clip keeps its duration and its sync.
    public var keepFrames = false
    /// Filter chains applied to each fitted picture, switched on a schedule of output times.
    public var filter: FilterSchedule?
    public var encode = EncodeSettings()
    /// The signal every clip is converted into and written in: SDR BT.709, or HDR BT.2020 HLG
    /// or PQ (as `composite --hdr`); `toneCurve` brings HDR clips into SDR (or PQ into HLG).
    public var signal = WorkingSignal.sdr
    public var toneCurve = ToneCurve.hable
    /// Interlaced clips: one picture per frame (the default), per field, or left woven.
    public var deinterlace = DeinterlaceMode.frame
    /// `--from/--to`: a cut of the joined timeline (output frames [A, B) of the whole join, as
    /// every command cuts), its sound cut at the same frame boundaries to the sample.
    public var cut: TimeCut?
    /// `--frames A:B`: the same by number, output frames [A, B) of the whole join.
    public var frames: FrameRange?
    /// A stage (a clip's reader, the encoder) stuck this long stops the job, as in `composite`.
    public var stallTimeout = 30.0

    public init(clips: [String], output: String) { self.clips = clips; self.output = output }

    /// The longest fade: a second on each side of a join.
    public static let longestCrossfadeMs = 2000

    /// Throws a `ConcatError` (or `OutputOptionsError`) whose line is one sentence naming the option and the cause.
    public func check() throws {
        guard !clips.isEmpty else { throw ConcatError.noClips }
        if let maxDuration, maxDuration.num <= 0 {
            throw ConcatError.maxDurationNotPositive(Self.text(maxDuration))
        }
        try CompositeOptions.check(size: size, frameRate: frameRate, signal: signal, codec: encode.codec)
        try CompositeOptions.check(codec: encode.codec, signal: signal, output: output)
        try CompositeOptions.check(stallTimeout: stallTimeout)
        if let crossfadeMs, !(1...Self.longestCrossfadeMs).contains(crossfadeMs) {
            throw ConcatError.crossfadeOutOfRange(limit: Self.longestCrossfadeMs, got: crossfadeMs)
        }
        if copy {
            // A copied stream is cut only where its packets are: no cap inside a GOP, no new size,
            // rate or fade (the video is not touched; the audio's joins follow the video's).
            for (given, name) in [
                (maxDuration != nil, "--max-duration"), (size != nil, "--size"), (frameRate != nil, "--fps"),
                (crossfadeMs != nil, "--crossfade-ms")
            ] where given {
                throw ConcatError.copyCannotRetime(option: name)
            }
            if filter != nil {
                throw ConcatError.copyWithFilters
            }
            if cut != nil {
                throw ConcatError.copyWithCut
            }
            if frames != nil {
                throw ConcatError.copyWithFrames
            }
            if signal.isHDR || encode.codec != nil {
                throw ConcatError.copyWithEncoding(option: signal.isHDR ? "--hdr" : "--codec")
            }
        }
        if frames != nil && cut != nil {
            throw CompositeOptionsError.framesAndCut
        }
        if signal.isHDR && filter != nil {
            throw ConcatError.hdrWithFilters(hdr: signal.rawValue)
        }
        try CompositeOptions.check(encode: encode)
        // Every clip may have sound: FLAC only into Matroska, as everywhere.
        try CompositeOptions.check(layout: encode, audio: true, output: output)
    }

    /// "0", "-1.5", "7/3" as the user would write it.
    static func text(_ r: Rational) -> String {
        r.den == 1 ? "\(r.num)" : String(format: "%g", r.seconds)
    }

    /// Output frames that end at or before `seconds`: floor(seconds x fps), in 128 bits (a cap of
    /// 2^63-1 seconds caps nothing; it trapped in Rational's 64-bit product).
    static func frames(within seconds: Rational, frameRate: Rational) -> Int64 {
        let frames = Int128(seconds.num) * Int128(frameRate.num) / (Int128(seconds.den) * Int128(frameRate.den))
        return Int64(clamping: frames)
    }
}

public struct ConcatResult: Sendable {
    public var frames: Int64
    public var audioSamples: Int64?
    public var canvas: Size
    public var frameRate: Rational
    /// Output frames each clip gave, in order (clips past the cap are absent).
    public var clipFrames: [Int64]
    /// What the job chose that the user should hear of, one line each (under `--keep-frames`:
    /// the clips whose speed changes); told as a notice (`JobEvents.notice`) as soon as known.
    public var notices: [String] = []
    /// Pictures the clips' decoders gave, also those decoded only to reach a cut's first frame.
    public var picturesDecoded = 0
}
