import Engine
import Foundation

/// Why reverse's options cannot work (`ReverseOptions.check()`). Each case renders the one line
/// the user reads.
public enum ReverseError: JobFailure, Equatable {
    case tooFewLoops(Int)
    case tooManyLoops(Int, limit: Int)
    case tooFewPoolFrames(Int)

    public var description: String {
        switch self {
        case .tooFewLoops(let loops): "--loops must be at least 1 (it is \(loops))."
        case .tooManyLoops(let loops, let limit): "--loops must be at most \(limit) (it is \(loops))."
        case .tooFewPoolFrames(let frames): "--pool-frames must be at least 1 (it is \(frames))."
        }
    }
}
