import Engine
import Foundation

/// Why `testsrc` cannot make the movie asked for, or `verify --coded --input` cannot read a
/// composite's input. Each case renders the one line the user reads.
public enum TestKitError: JobFailure, Equatable {
    case codecNeedsMOVOrMKV(output: String, codec: String)
    case noFrame
    case rateOutOfRange
    case tooLong(limit: Int)
    case sizeOutOfRange
    case audioRateOutOfRange
    case channelsOutOfRange
    case notAComposite(path: String)
    case noSuchInput(path: String, input: Int, of: Int)

    public var description: String {
        switch self {
        case .codecNeedsMOVOrMKV(let output, let codec): "\(output): --codec \(codec) needs a .mov or .mkv file."
        case .noFrame: "--duration must be a positive number of seconds giving at least one frame."
        case .rateOutOfRange: "--fps must be a positive rate of at most 240."
        case .tooLong(let limit): "--duration is too long: the frame code counts \(limit) frames."
        case .sizeOutOfRange: "--size must be even numbers from 160x90 to 8192x8192 (the code needs room)."
        case .audioRateOutOfRange: "--audio-rate must be from 8000 to 192000 Hz."
        case .channelsOutOfRange: "--channels must be from 1 to 8."
        case .notAComposite(let path): "\(path): --input needs a Lockstep composite (its first frame's provenance names the inputs); this movie has none."
        case .noSuchInput(let path, let k, let count): "\(path): --input \(k) is out of range: the composite has \(count) inputs (0 to \(count - 1))."
        }
    }
}
