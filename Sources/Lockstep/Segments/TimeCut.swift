import Compositor
import Foundation

/// `--from T` and `--to T`: a cut of the output by time, resolved to whole output frames once
/// the output's rate is known (the cut is then a segment render, `FrameRange`, with everything
/// `--frames` guarantees: the sound cut at the same frame boundaries to the sample).
///
/// The first frame is the one on screen at T (frame floor(T * fps), shown from its start); the
/// last is the one on screen just before the end (frames starting before `--to`, ceil(T * fps)
/// excluded). So a cut never starts later or ends earlier than asked, by less than one frame.
public struct TimeCut: Equatable, Sendable, CustomStringConvertible {
    public var from: Rational?
    public var to: Rational?

    /// Times as the user typed them; the errors are the sentences the CLI shows.
    public init(from: String?, to: String?) throws {
        self.from = try from.map { try Self.time($0, option: "--from") }
        self.to = try to.map { try Self.time($0, option: "--to") }
        if let a = self.from, let b = self.to, !(a < b) {
            throw CutError.endsBeforeStart(from: from!, to: to!)
        }
        // `--to 0` alone kept no frame, and the jobs trapped on the empty range.
        if self.from == nil, let b = self.to, !(Rational(0, 1) < b) { throw CutError.endsAtZero(to!) }
    }

    public init(from: Rational?, to: Rational?) { self.from = from; self.to = to }

    public var description: String {
        [from.map { "--from \(Self.text($0))" }, to.map { "--to \(Self.text($0))" }].compactMap { $0 }.joined(separator: " ")
    }

    /// The latest time a cut may name: a million hours, in seconds.
    static let longest = Rational(3_600_000_000, 1)

    /// "12.5", "1:02.5", "01:02:03.250": seconds, or minutes and seconds, or hours, minutes and
    /// seconds (the last part may have a fraction), never negative.
    public static func time(_ text: String, option: String) throws -> Rational {
        let bad = CutError.notATime(option: option, text: text)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = parts.last, let seconds = Rational(parsing: String(last)), seconds.num >= 0,
            !last.hasPrefix("+"), !last.hasPrefix("-")
        else { throw bad }
        var total = seconds
        var scale: Int64 = 60
        for part in parts.dropLast().reversed() {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let v = Int64(part), v < 1_000_000 else { throw bad }
            total = total + Rational(v * scale, 1)
            scale *= 60
        }
        // A minutes or seconds field of 60 or more after a colon is a typing slip, not a time.
        if parts.count > 1 && !(seconds < Rational(60, 1)) { throw bad }
        if parts.count == 3, let m = Int64(parts[1]), m >= 60 { throw bad }
        // Far past any movie, and small enough that times a frame rate stays inside Int64.
        if !(total < longest) { throw CutError.tooLate(option: option, text: text) }
        return total
    }

    /// The output frames the cut keeps at `frameRate`: [floor(from * fps), ceil(to * fps)),
    /// the end nil for "to the end".
    public func frames(frameRate: Rational) -> (start: Int64, end: Int64?) {
        let start = from.map { Self.floor($0 * frameRate) } ?? 0
        let end = to.map { Self.ceil($0 * frameRate) }
        return (start, end)
    }

    static func floor(_ r: Rational) -> Int64 { r.num >= 0 ? r.num / r.den : -((-r.num + r.den - 1) / r.den) }
    static func ceil(_ r: Rational) -> Int64 { -floor(Rational(-r.num, r.den)) }

    /// "12.5", "1/3" where a decimal would round.
    static func text(_ r: Rational) -> String { InputClock.text(r) }
}
