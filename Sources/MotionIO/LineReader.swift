import Foundation
import Motion

/// Reads a text file line by line in 1 MiB chunks, so a file of any size is never held whole;
/// the cutting into lines is Motion's `LineSplitter` (pure, tested on bytes).
public final class LineReader {
    public let path: String
    private let handle: FileHandle
    private var splitter: LineSplitter
    private let chunkSize: Int
    public var lineNumber: Int { splitter.lineNumber }

    public init(path: String, chunkSize: Int = 1 << 20) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TraceFileError(path: path, "no such file")
        }
        guard !isDirectory.boolValue, let handle = FileHandle(forReadingAtPath: path) else {
            throw TraceFileError(path: path, "cannot be read")
        }
        self.path = path; self.handle = handle; self.chunkSize = max(1, chunkSize)
        splitter = LineSplitter(source: path)
    }

    deinit { try? handle.close() }

    /// The next line without its end, or nil at the end of the file.
    public func next() throws -> Substring? {
        while true {
            if let line = try splitter.next() { return line }
            if splitter.isDone { return nil }
            let chunk: Data
            do { chunk = try handle.read(upToCount: chunkSize) ?? Data() } catch {
                throw TraceFileError(path: path, "cannot be read (\(error.localizedDescription))")
            }
            if chunk.isEmpty { splitter.finish() } else { splitter.append(chunk) }
        }
    }
}
