import Engine
import Foundation

/// Why `filter --variants` cannot run as asked (`FilterVariantsOptions.check()`), or a variant's
/// failure a test injected. Each case renders the one line the user reads.
public enum FilterVariantsError: JobFailure, Equatable {
    case framesAndCut
    case fieldDeinterlaceInCut(byTime: Bool)
    case outputIsAFile(folder: String)
    case noParentFolder(folder: String, parent: String)
    /// Entries `first` and `second` (0-based), whose chains are written `firstChain` and
    /// `secondChain`, would both write `output`.
    case sameOutput(first: Int, second: Int, firstChain: String, secondChain: String, output: String)
    /// `injectedFailure`: a variant stopped after this many frames, as a test asks.
    case injected(afterFrames: Int64)

    public var description: String {
        switch self {
        case .framesAndCut: "--frames and --from/--to both choose the output's frames; give one."
        case .fieldDeinterlaceInCut(let byTime):
            "--deinterlace field cannot be combined with \(byTime ? "--from/--to" : "--frames"): a cut would not start on the field the single pass shows there."
        case .outputIsAFile(let folder): "-o \(folder): --variants writes one file per chain into a folder, and \(folder) is a file."
        case .noParentFolder(let folder, let parent):
            "-o \(folder): --variants writes one file per chain into a folder, and there is no folder \(parent) to make it in."
        case .sameOutput(let first, let second, let firstChain, let secondChain, let output):
            "--variants entries \(first + 1) and \(second + 1) (\"\(firstChain)\", \"\(secondChain)\") would both write \(output)."
        case .injected(let frames): "failed after \(frames) frames, as the test asked"
        }
    }
}
