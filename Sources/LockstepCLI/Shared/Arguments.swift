import ArgumentParser
import Foundation
import Lockstep

extension BlendMode: ExpressibleByArgument {
    public init?(argument: String) {
        guard let b = BlendMode(rawValue: argument), BlendMode.compositing.contains(b) else { return nil }
        self = b
    }
    public static var allValueStrings: [String] { compositing.map(\.rawValue) }
}

/// `composite --sync`: the library's two policies, and `audio`: time sync with every input placed
/// on the first one's clock by its sound (`CompositeOptions.clocksFromSound`).
enum SyncChoice: String, CaseIterable, ExpressibleByArgument {
    case index, time, audio
}
extension SnakeDrive: ExpressibleByArgument {}

extension Size: ExpressibleByArgument {
    /// "1920x1080"
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
        self.init(width: w, height: h)
    }
}

extension Rational: ExpressibleByArgument {
    /// "30", "30000/1001", "29.97"
    public init?(argument: String) { self.init(parsing: argument) }
}

extension RGB: ExpressibleByArgument {
    /// "00FF00"
    public init?(argument: String) { self.init(hex: argument) }
}

/// A comma-separated list of numbers: "1,0.5,2". Infinities and NaN parse, so that validation
/// can say what is wrong with them in a sentence naming the option.
struct NumberList: ExpressibleByArgument {
    var values: [Double]
    init?(argument: String) {
        let parsed = argument.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else { return nil }
        values = parsed.map { $0! }
    }
}

/// `--loudness`: "r128" (EBU R128's -23 LUFS) or a number of LUFS.
struct LoudnessTarget: ExpressibleByArgument {
    var lufs: Double
    init?(argument: String) {
        if argument.lowercased() == "r128" || argument.lowercased() == "ebu" { lufs = -23; return }
        guard let v = Double(argument.lowercased().replacingOccurrences(of: "lufs", with: "").trimmingCharacters(in: .whitespaces)) else { return nil }
        lufs = v
    }
}

enum AudioChoice: String, CaseIterable, ExpressibleByArgument {
    /// Every input's default audio stream, mixed.
    case mix
    /// No audio stream in the output.
    case none
}

/// A library check in `validate()`: the sentence it fails with (a `JobFailure` such as
/// `OutputPathError`, or a `FilterError`: the library's words for what is wrong with what the
/// user gave) becomes ArgumentParser's usage error (the usage after it), after `option` when
/// given. Any other error goes on as it is. Only for checks: a job's own failure ends it as a
/// failure (`ExitStatus`), not a usage error.
func asUsage<T>(_ option: String? = nil, _ check: () throws -> T) throws -> T {
    func usage(_ sentence: String) -> ValidationError { ValidationError(option.map { "\($0) \(sentence)" } ?? sentence) }
    do {
        return try check()
    } catch let e as any JobFailure {
        throw usage(e.description)
    } catch let e as FilterError {
        throw usage(e.description)
    }
}
