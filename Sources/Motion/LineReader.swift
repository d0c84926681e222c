import Foundation

/// Reads a text file line by line in 1 MiB chunks, so a file of any size is never held whole.
/// Lines end with `\n` (a `\r` before it is dropped); numbering starts at 1.
public final class LineReader {
    public let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    public private(set) var lineNumber = 0
    private let chunkSize: Int

    public init(path: String, chunkSize: Int = 1 << 20) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TraceFileError(path: path, "no such file")
        }
        guard !isDirectory.boolValue, let handle = FileHandle(forReadingAtPath: path) else {
            throw TraceFileError(path: path, "cannot be read")
        }
        self.path = path; self.handle = handle; self.chunkSize = chunkSize
    }

    deinit { try? handle.close() }

    /// The next line without its end, or nil at the end of the file.
    public func next() throws -> Substring? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[position..<newline]
                position = newline + 1
                return take(line)
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                let line = buffer[position...]
                position = buffer.count
                return take(line)
            }
            // Keep the unfinished line, drop what was consumed, read on.
            buffer.removeSubrange(0..<position)
            position = 0
            let chunk = try handle.read(upToCount: chunkSize) ?? Data()
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
    }

    private func take(_ bytes: ArraySlice<UInt8>) -> Substring {
        lineNumber += 1
        let trimmed = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes
        return Substring(String(decoding: trimmed, as: UTF8.self))
    }
}
