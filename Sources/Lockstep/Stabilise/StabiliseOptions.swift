import Foundation
import Motion

/// What stabilises one input (`lockstep stabilise`, `composite --stabilise`): where its motion
/// comes from and how it is smoothed and cropped. Nothing opened yet.
public struct StabiliseOptions: Sendable {
    /// A trace (store, .gcsv, .csv, flight log, camera file); nil: the movie's own telemetry.
    public var imu: String?
    /// Which trace of a store or log.
    public var trace: Int64?
    /// A calibration profile; nil: `calibrate` runs inside, with its refusals.
    public var calibration: String?
    /// A Gyroflow lens profile (JSON); nil: the calibration's focal length and k1.
    public var lens: String?
    public var settings = StabiliseSettings()
    /// The rolling shutter's readout (`--rolling-shutter`), over the lens profile's and the calibration's.
    public var rollingShutterMs: Double?
    /// `--export-path`: the camera's and the smoothed orientation per frame, CSV.
    public var exportPath: String?

    public init() {}

    /// The files these options read (an output must not replace them).
    public var readFiles: [String] { [imu, calibration, lens].compactMap { $0 } }
}

/// `composite --stabilise all|N,...`: which inputs are stabilised, each from its own telemetry
/// unless `options` name a trace.
public struct StabiliseRequest: Sendable {
    /// 0-based inputs; nil: every input.
    public var inputs: Set<Int>?
    public var options: StabiliseOptions

    public init(inputs: Set<Int>?, options: StabiliseOptions) { self.inputs = inputs; self.options = options }

    public func applies(to input: Int) -> Bool { inputs.map { $0.contains(input) } ?? true }

    /// "all" or 1-based input numbers "1,3" (as the user counts inputs); errors are a sentence.
    public static func parseInputs(_ text: String, count: Int) throws -> Set<Int>? {
        if text == "all" { return nil }
        var out = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let n = Int(part.trimmingCharacters(in: .whitespaces)), n >= 1, n <= count else {
                throw JobError("--stabilise: \"\(text)\" is not \"all\" or input numbers from 1 to \(count) separated by commas")
            }
            out.insert(n - 1)
        }
        return out
    }
}

extension CompositeOptions {
    /// `lockstep stabilise IN -o OUT ...`: the composite pipeline with one input, no blend, the
    /// input stabilised after it is conformed.
    public static func stabilise(input: String, output: String, options: StabiliseOptions) -> CompositeOptions {
        var o = CompositeOptions(inputs: [input], output: output, blend: .single)
        o.stabilise = StabiliseRequest(inputs: nil, options: options)
        return o
    }
}
