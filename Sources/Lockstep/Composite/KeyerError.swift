import Engine
import Foundation

/// Why the keyer's or the matte's options cannot work (`checkKeyer`, `checkMatte`), found
/// before any input is opened. Each case renders the one line the user reads; values are kept
/// as the user's line shows them.
public enum KeyerError: JobFailure, Equatable {
    case notAFraction(option: String, got: String)
    case spillCastOutOfRange(lowest: String, highest: String, got: String)
    case outOfRange(option: String, lowest: String, highest: String, got: String)
    case clipsCrossed(white: String, black: String)
    case negativeRadius(option: String, got: String)
    case radiusTooLarge(option: String, limit: String, got: String)
    case badShape(option: String, problem: String)
    case needsLockstepKeyer
    case weakScreenColour(hex: String)
    case mixFactorOutOfRange(got: String)
    case matteNeedsFilter
    case matteNeedsKeyBlend(blend: String)

    public var description: String {
        switch self {
        case .notAFraction(let option, let got): "\(option) must be between 0 and 1; got \(got)."
        case .spillCastOutOfRange(let lowest, let highest, let got): "--spill-cast must be between \(lowest) and \(highest); got \(got)."
        case .outOfRange(let option, let lowest, let highest, let got): "\(option) must be between \(lowest) and \(highest); got \(got)."
        case .clipsCrossed(let white, let black): "--clip-white must be above --clip-black; got \(white) and \(black)."
        case .negativeRadius(let option, let got): "\(option) must be 0 or more pixels; got \(got)."
        case .radiusTooLarge(let option, let limit, let got): "\(option) must be at most \(limit) pixels; got \(got)."
        case .badShape(let option, let problem): "\(option): \(problem)."
        case .needsLockstepKeyer:
            "--clip-black, --clip-white, --screen-balance, --despill, --despill-balance, --spill-cast, --core-clip, --matte-smoothing, --erode, --dilate, --feather, --garbage, --core and --key-view need --keyer lockstep."
        case .weakScreenColour(let hex):
            "--key-color \(hex): the lockstep keyer needs a screen colour whose strongest channel stands clear of the other two (a green or blue screen); --keyer gpuimage keys any colour."
        case .mixFactorOutOfRange(let got): "--mix-factor must be between 0 and 1; got \(got)."
        case .matteNeedsFilter: "--matte mixes the filtered picture with the unfiltered one: it needs --filter or --filter-at."
        case .matteNeedsKeyBlend(let blend): "--matte is the foreground's alpha: it needs --blend chromakey or stack; got \(blend)."
        }
    }
}
