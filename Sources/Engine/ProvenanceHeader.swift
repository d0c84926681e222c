import Compositor
import Foundation

/// Frame 0's provenance header, as every job writes it: how the output was made (`sync`,
/// `blend`), its rate, and each input by its file name and clock. One builder for the five jobs
/// that write one (composite, concat, concat's stream copy, reverse, filter variants).
extension Provenance {
    public static func header(sync: String?, blend: String? = nil, frameRate: Rational, inputs: [Input]) -> Provenance {
        Provenance(k: 0, src: [], sync: sync, blend: blend, fps: fraction(frameRate), inputs: inputs)
    }

    /// A rational as the header writes it: "num/den", both always ("30/1", not "30").
    public static func fraction(_ r: Rational) -> String { "\(r.num)/\(r.den)" }
}

extension Provenance.Input {
    /// An input named by its file name (no folder: the header stays the same wherever the files
    /// were) and its stream's time base.
    public init(path: String, timeBase: Rational, audio: Bool, frames: Int64? = nil) {
        self.init(name: (path as NSString).lastPathComponent, timeBase: Provenance.fraction(timeBase), audio: audio, frames: frames)
    }
}
