import CFFmpeg
import Compositor

#if canImport(Glibc)
    import Glibc
#endif

/// An FFmpeg failure: the function that failed, FFmpeg's own message (`av_strerror`), and the
/// file it concerned, so a person reads one line and knows what and where.
public struct MediaError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What the caller may do about it: commands exit 2 for a file they cannot read (`verify`,
    /// `probe`), 1 for other failures; a cancelled read is the job's own decision, not a fault.
    public enum Kind: Equatable, Sendable {
        case failed
        /// The file cannot be opened or read as a movie (missing, not a movie, truncated, corrupt).
        case unreadable
        /// A `CancellationToken` was raised while FFmpeg waited (AVERROR_EXIT).
        case cancelled
    }

    public var kind: Kind
    public var code: Int32
    public var function: String
    public var message: String
    public var path: String?

    public init(code: Int32, function: String, path: String? = nil) {
        self.code = code; self.function = function; self.path = path
        self.message = MediaError.text(for: code)
        self.kind = code == swift_AVERROR_EXIT() ? .cancelled : .failed
    }

    /// A failure FFmpeg did not report as a code: a file without video, a format we refuse.
    public init(_ message: String, path: String? = nil, kind: Kind = .failed) {
        self.code = 0; self.function = ""; self.message = message; self.path = path; self.kind = kind
    }

    /// The read of `path` was given up because its token was raised.
    public static func cancelled(_ path: String?) -> MediaError { MediaError("cancelled", path: path, kind: .cancelled) }

    public var description: String {
        let what = function.isEmpty ? message : "\(message) (\(function))"
        return path.map { "\($0): \(what)" } ?? what
    }

    public func at(_ path: String) -> MediaError { var e = self; if e.path == nil { e.path = path }; return e }

    /// The same failure, classed as the file's fault (unless it was a cancellation).
    func unreadable() -> MediaError { var e = self; if e.kind == .failed { e.kind = .unreadable }; return e }

    static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard av_strerror(code, &buffer, buffer.count) == 0 else { return "error \(code)" }
        return cString(buffer)
    }
}

/// Every FFmpeg call that returns a status goes through here: negative codes throw, with
/// FFmpeg's message. EAGAIN and EOF are not errors in a send/receive loop: those calls use
/// `CodecStep` instead.
@discardableResult
func check(_ code: Int32, _ function: String, path: String? = nil) throws -> Int32 {
    if code < 0 { throw MediaError(code: code, function: function, path: path) }
    return code
}

let AVERROR_EAGAIN = swift_AVERROR(EAGAIN)
let AVERROR_EOF_CODE = swift_AVERROR_EOF()
let NOPTS = swift_AV_NOPTS_VALUE()

/// What a send/receive call gave: a result, never an error.
public enum CodecStep: Equatable, Sendable {
    case produced
    case needsInput
    case endOfStream
}

extension AVRational {
    var rational: Rational { Rational(Int64(num), Int64(den == 0 ? 1 : den)) }
}

extension Rational {
    var av: AVRational { AVRational(num: Int32(num), den: Int32(den)) }
}

/// A NUL-terminated C string FFmpeg wrote into `buffer`.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
