import Engine
import Foundation

/// Why a thumbnail's options cannot work, found before any movie is opened. Each case renders
/// the one line the user reads. (`ThumbnailOptionError`: a time the clip turns out not to have.)
public enum ThumbnailError: JobFailure, Equatable {
    case noInput
    case oneInputOnly(got: Int)
    case notAnImageName(String)
    case negativeTime(given: String)
    case sizeOutOfRange(String)

    public var description: String {
        switch self {
        case .noInput: "thumbnail needs an input movie."
        case .oneInputOnly(let n): "thumbnail takes one input (got \(n)); use --sheet for a contact sheet of several."
        case .notAnImageName(let output): "\(output): the output must end in .png, .jpg or .jpeg."
        case .negativeTime(let given): "--at \(given): the time must be zero or more seconds."
        case .sizeOutOfRange(let size): "--size \(size): each side must be 16 to 16384 pixels."
        }
    }
}
