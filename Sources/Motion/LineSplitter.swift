/// Cuts bytes into lines, without I/O: whoever reads the file hands the bytes in as they come.
/// Lines end with `\n` (a `\r` before it is dropped); numbering starts at 1. A line longer than
/// `maxLineLength` is an error, so a file with no line ends is never gathered into memory whole.
public struct LineSplitter: Sendable {
    public static let maxLineLength = 1 << 20

    /// Named in errors.
    public let source: String
    public let maxLineLength: Int
    public private(set) var lineNumber = 0
    /// True once `finish()` was called and every line has been taken.
    public var isDone: Bool { ended && position == buffer.count }
    private var buffer: [UInt8] = []
    private var position = 0
    /// Where to resume looking for `\n` (bytes before it are known to hold none).
    private var scanned = 0
    private var ended = false

    public init(source: String, maxLineLength: Int = LineSplitter.maxLineLength) {
        self.source = source
        self.maxLineLength = maxLineLength
    }

    /// More bytes of the input.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        precondition(!ended, "bytes after finish()")
        if position > 0 {
            // Keep the unfinished line, drop what was taken.
            buffer.removeSubrange(0..<position)
            scanned -= position
            position = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The input ended: what follows the last `\n` is the last line.
    public mutating func finish() { ended = true }

    /// The next complete line without its end; nil when more bytes are needed (or, once
    /// finished, at the end).
    public mutating func next() throws -> Substring? {
        if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer[position..<newline]
            position = newline + 1
            scanned = position
            return try take(line)
        }
        scanned = buffer.count
        if ended {
            guard position < buffer.count else { return nil }
            let line = buffer[position...]
            position = buffer.count
            return try take(line)
        }
        if buffer.count - position > maxLineLength {
            throw TraceFileError(path: source, line: lineNumber + 1, "the line is longer than \(maxLineLength) bytes")
        }
        return nil
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) throws -> Substring {
        lineNumber += 1
        let trimmed = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes
        if trimmed.count > maxLineLength {
            throw TraceFileError(path: source, line: lineNumber, "the line is longer than \(maxLineLength) bytes")
        }
        return Substring(String(decoding: trimmed, as: UTF8.self))
    }

    /// Every line of `bytes` (for parsing text already in memory).
    public static func lines(of bytes: some Collection<UInt8>, source: String) throws -> [(number: Int, text: Substring)] {
        var s = LineSplitter(source: source)
        s.append(bytes)
        s.finish()
        var out: [(number: Int, text: Substring)] = []
        while let line = try s.next() { out.append((s.lineNumber, line)) }
        return out
    }
}
