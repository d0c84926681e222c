import Foundation
import Motion

/// A file mapped read-only, owned here (unmapped in `deinit`). Pages of a mapping count in the
/// process's resident memory once read, until the kernel needs them back: a reader that goes
/// through a long file front to back gives back what it has passed (`release`), so the file
/// is never resident whole.
final class MappedFile {
    let path: String
    private let base: UnsafeMutableRawPointer?
    let count: Int
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TraceFileError(path: path, "cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw TraceFileError(path: path, "cannot be read (\(String(cString: strerror(errno))))") }
        count = Int(st.st_size)
        guard count > 0 else { base = nil; return }
        let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { throw TraceFileError(path: path, "cannot be read (mmap: \(String(cString: strerror(errno))))") }
        base = p
        // Read ahead more, and drop behind.
        madvise(p, count, MADV_SEQUENTIAL)
    }

    deinit { if let base { munmap(base, count) } }

    /// The file's bytes, valid while this object lives.
    var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base?.assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// Gives back the whole pages inside `range`: reading them again reads the file again.
    func release(_ range: Range<Int>) {
        guard let base else { return }
        let lower = (range.lowerBound + pageSize - 1) / pageSize * pageSize
        let upper = range.upperBound == count ? count : range.upperBound / pageSize * pageSize
        guard upper > lower else { return }
        madvise(base + lower, upper - lower, MADV_DONTNEED)
    }
}
