import Engine
import Foundation

/// Why an output option every encoding command shares cannot work (`--size`, `--fps`, `--codec`
/// against `--hdr`/`-o`/`--crf`/`--preset`, `--crf`, `--preset`, `--stall-timeout`), or why the
/// canvas the inputs give cannot be encoded. Values are kept as the user's line shows them.
public enum OutputOptionsError: JobFailure, Equatable {
    case sizeNotEven(size: String)
    case sizeTooLarge(size: String, limit: Int)
    case sizeNotEncodable(size: String, problem: String)
    case frameRateNotPositive(String)
    case frameRateTooFine(String, limit: Int32)
    case frameRateOutOfRange(String)
    case stallTimeoutOutOfRange(limit: Int, got: Double)
    /// `codec` is the option's value, `name` the codec as people call it (Apple ProRes 422 HQ).
    case codecWithoutHDR(codec: String, hdr: String)
    case codecNeedsMOV(codec: String, name: String, output: String)
    case rateFactorWithoutCRF(codec: String, name: String)
    case presetWithoutPresets(codec: String, name: String)
    case codecInSegments(codec: String)
    case rateFactorOutOfRange(Int)
    case notAPreset(String, presets: [String])
    /// The canvas the inputs gave (`from`: "a.mp4's picture", "the grid of the inputs' pictures").
    case canvasNotEncodable(canvas: String, from: String, problem: String)

    public var description: String {
        switch self {
        case .sizeNotEven(let size): "--size \(size): width and height must be even numbers of at least 2."
        case .sizeTooLarge(let size, let limit): "--size \(size): width and height must be at most \(limit)."
        case .sizeNotEncodable(let size, let problem): "--size \(size): \(problem)."
        case .frameRateNotPositive(let fps): "--fps \(fps): the frame rate must be positive."
        case .frameRateTooFine(let fps, let limit):
            "--fps \(fps): the numerator and denominator must be at most \(limit) (FFmpeg keeps a frame rate as a fraction of 32-bit numbers)."
        case .frameRateOutOfRange(let fps): "--fps \(fps): the frame rate must be between 1/1000 and 1000."
        case .stallTimeoutOutOfRange(let limit, let got): "--stall-timeout must be a positive number of seconds, at most \(limit); got \(got)."
        case .codecWithoutHDR(let codec, let hdr):
            "--codec \(codec) cannot be combined with --hdr \(hdr): H.264 HDR is not offered; use --codec hevc, prores or dnxhr."
        case .codecNeedsMOV(let codec, let name, let output): "--codec \(codec) needs a .mov output, not -o \(output): \(name) goes into MOV."
        case .rateFactorWithoutCRF(let codec, let name):
            "--crf cannot be combined with --codec \(codec): \(name) has no constant rate factor (a fixed-quality intra profile)."
        case .presetWithoutPresets(let codec, let name): "--preset cannot be combined with --codec \(codec): \(name) has no encoder presets."
        case .codecInSegments(let codec): "--codec \(codec) cannot be combined with --frames or --segments: segment renders are H.264 only."
        case .rateFactorOutOfRange(let crf): "--crf must be between 0 and 51; got \(crf)."
        case .notAPreset(let preset, let presets): "--preset \(preset) is not an x264 preset; use one of \(presets.joined(separator: ", "))."
        case .canvasNotEncodable(let canvas, let from, let problem): "the canvas \(canvas), from \(from), cannot be encoded: \(problem); give another with --size."
        }
    }
}
