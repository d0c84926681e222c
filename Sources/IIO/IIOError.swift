import CIIO
import Glibc

/// A libiio call that failed: the function, the errno it gave, and libiio's own message for it
/// (iio_strerror).
public struct IIOError: Error, Equatable, CustomStringConvertible, Sendable {
    public var function: String
    public var code: Int32
    public var message: String

    public init(_ function: String, code: Int32) {
        self.function = function; self.code = code
        var text = [CChar](repeating: 0, count: 256)
        iio_strerror(code, &text, text.count)
        message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "\(function): \(message)" }
}

/// Every libiio call goes through one of these: negative results are -errno; a nil pointer
/// leaves the cause in errno.
@discardableResult
func iioCheck<T: BinaryInteger & SignedNumeric>(_ function: @autoclosure () -> String, _ result: T) throws -> T {
    if result < 0 { throw IIOError(function(), code: Int32(-result)) }
    return result
}

func iioCheck<P>(_ function: @autoclosure () -> String, _ pointer: P?) throws -> P {
    guard let pointer else { throw IIOError(function(), code: errno != 0 ? errno : ENOENT) }
    return pointer
}

/// The libiio this process runs with, for `lockstep --version`.
public enum LibIIOVersion {
    public static var description: String {
        var major: UInt32 = 0, minor: UInt32 = 0
        var tag = [CChar](repeating: 0, count: 8)
        iio_library_get_version(&major, &minor, &tag)
        let git = String(decoding: tag.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(major).\(minor)" + (git.isEmpty ? "" : " (\(git))")
    }
}
