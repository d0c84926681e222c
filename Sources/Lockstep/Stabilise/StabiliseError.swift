import Engine
import Foundation
import Motion

/// Why an input cannot be stabilised as asked (`--stabilise`, `lockstep stabilise`): its motion,
/// lens or profile cannot be had, or an option cannot work with it. Each case renders the one
/// line the user reads, naming the file.
public enum StabiliseError: JobFailure, Equatable {
    /// `--lens PATH` cannot be read (`exists`: it is there, but unreadable).
    case lensUnreadable(path: String, exists: Bool)
    case badLens(LensProfileError)
    /// Calibrate's refusal of a clip the camera stabilised without recording how.
    case stabilisedInCamera(CalibrationError)
    /// Calibrate's answer for the clip cannot be trusted.
    case untrustedProfile(CalibrationError)
    case noFocalLength(source: String)
    case tooFewOrientationRecords(video: String)
    case tooFewReadings(trace: String, readings: Int)
    /// The trace covers the video from `first` to `last` s, not the clip's 0 to `duration` s.
    case traceDoesNotCover(trace: String, first: Double, last: Double, duration: Double)
    case notInputNumbers(String, inputs: Int)
    case alphaInput(input: Int, path: String)
    /// Scale-out (`--segments`) of a stabilised render: not offered (each task would plan the
    /// whole clip's path again, and the joined result is not checked).
    case notInSegments
    case exportPathIsOutput(String)

    public var description: String {
        switch self {
        case .lensUnreadable(let path, let exists): "\(path): \(exists ? "cannot be read" : "no such file")"
        case .badLens(let e): e.description
        case .stabilisedInCamera(let e): e.description.replacingOccurrences(of: "Calibrate on", with: "Stabilise")
        case .untrustedProfile(let e): e.description + "; stabilise needs a profile it can trust (give one with --calibration)"
        case .noFocalLength(let source):
            "\(source): the profile has no focal length (focalLengthPx or horizontalFOVDeg); give a lens profile with --lens"
        case .tooFewOrientationRecords(let video): "\(video): its image orientation records (IORI) hold fewer than two frames"
        case .tooFewReadings(let trace, let readings):
            "\(trace): the trace has \(readings == 0 ? "no readings" : "one reading") over the clip; stabilise needs the camera's motion for every frame"
        case .traceDoesNotCover(let trace, let first, let last, let duration):
            String(
                format: "%@: the trace covers the video from %.3f s to %.3f s, not the whole clip (0 to %.3f s); stabilise needs the camera's motion for every frame",
                trace, first, last, duration)
        case .notInputNumbers(let text, let inputs):
            "--stabilise: \"\(text)\" is not \"all\" or input numbers from 1 to \(inputs) separated by commas"
        case .alphaInput(let input, let path):
            "--stabilise: input \(input + 1) (\(path)) has alpha, which the stabiliser does not warp; leave it out of --stabilise"
        case .notInSegments: "--stabilise cannot be combined with --segments: a stabilised render is not split into tasks yet; --frames A:B or --from/--to render a part of it"
        case .exportPathIsOutput(let path): "--export-path \(path) is the output movie; write the path somewhere else."
        }
    }
}
