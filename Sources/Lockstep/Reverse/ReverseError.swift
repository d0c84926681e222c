import Engine
import Foundation

/// Why reverse's options cannot work (`ReverseOptions.check()`). Each case renders the one line
/// the user reads.
public enum ReverseError: JobFailure, Equatable {
    case tooFewLoops(Int)
    case tooManyLoops(Int, limit: Int)
    case tooFewPoolFrames(Int)
    /// `--deinterlace field`: one picture per field, which a reversal would have to show in
    /// reverse field order (not offered).
    case deinterlaceByField

    public var description: String {
        switch self {
        case .tooFewLoops(let loops): "--loops must be at least 1 (it is \(loops))."
        case .tooManyLoops(let loops, let limit): "--loops must be at most \(limit) (it is \(loops))."
        case .tooFewPoolFrames(let frames): "--pool-frames must be at least 1 (it is \(frames))."
        case .deinterlaceByField:
            "reverse cannot honour --deinterlace field: it deinterlaces one picture per frame (--deinterlace frame, the default); make one picture per field with composite or concat first."
        }
    }
}
