import Foundation
import Media

/// The input's audio, decoded once to a temporary raw file (48 kHz stereo float, interleaved)
/// that is then read in any order, backwards included: memory is one chunk, whatever the
/// length. Positions are samples from the input's first video frame. The file is unlinked as
/// soon as it is open, so it never outlives the process (not even a SIGKILL).
final class ReverseAudioSpool {
    private let fd: Int32
    /// Samples stored, from position 0.
    private(set) var count: Int64 = 0
    /// Samples read at most at once; the scratch holds one chunk, interleaved.
    static let chunk = 8192
    private let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * chunk)

    /// The output the spool serves: its errors name it (the spool's own name is never seen).
    private let output: String

    init(beside output: String) throws {
        self.output = output
        let path = OutputPath.temporary(beside: output + ".audio")
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw MediaError("cannot make a temporary file for the audio beside it: \(String(cString: strerror(errno)))", path: output) }
        unlink(path)
    }
    deinit { close(fd); scratch.deallocate() }

    /// Appends decoded samples that start at `position` (input clock minus the origin), up to
    /// `limit`: what lies before 0 or after `limit` is dropped, a gap becomes silence, an
    /// overlap keeps what was stored first.
    func append(_ s: AudioSamples, at position: Int64, limit: Int64) throws {
        if position > count { try writeSilence(min(position, limit) - count) }
        let skip = Int(max(0, count - position))
        let available = max(0, min(Int64(s.count), limit - position) - Int64(skip))
        guard available > 0 else { return }
        try s.withSamples { l, r in
            var done = 0
            while done < Int(available) {
                let n = min(Self.chunk, Int(available) - done)
                for i in 0..<n { scratch[2 * i] = l[skip + done + i]; scratch[2 * i + 1] = r[skip + done + i] }
                try write(n)
                done += n
            }
        }
    }

    /// Silence up to `limit` (audio that ends before the video).
    func pad(to limit: Int64) throws { if limit > count { try writeSilence(limit - count) } }

    private func writeSilence(_ n: Int64) throws {
        var left = n
        scratch.update(repeating: 0, count: 2 * Self.chunk)
        while left > 0 {
            let k = Int(min(Int64(Self.chunk), left))
            try write(k)
            left -= Int64(k)
        }
    }

    /// A short write is continued: only a failed call has an errno worth reporting (a full disk
    /// first writes part, then fails with ENOSPC; the errno read after the short write was a
    /// stale ENOENT, "No such file or directory").
    private func write(_ samples: Int) throws {
        let bytes = samples * 8
        var done = 0
        while done < bytes {
            let w = pwrite(fd, UnsafeRawPointer(scratch) + done, bytes - done, off_t(count * 8) + off_t(done))
            if w < 0 && errno == EINTR { continue }
            guard w > 0 else {
                let why = w < 0 ? String(cString: strerror(errno)) : "nothing could be written"
                throw MediaError("cannot write the temporary audio file beside it: \(why)", path: output)
            }
            done += w
        }
        count += Int64(samples)
    }

    /// Samples [from, from + n) into `left`/`right` (n <= chunk), in order or reversed;
    /// silence where nothing is stored.
    func read(from: Int64, count n: Int, reversed: Bool, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) throws {
        precondition(n <= Self.chunk)
        left.update(repeating: 0, count: n); right.update(repeating: 0, count: n)
        let lo = max(0, from), hi = min(count, from + Int64(n))
        guard lo < hi else { return }
        let k = Int(hi - lo), offset = Int(lo - from)
        let r = pread(fd, scratch, k * 8, off_t(lo * 8))
        if r != k * 8 {
            let why = r < 0 ? String(cString: strerror(errno)) : "it ended early"
            throw MediaError("cannot read the temporary audio file beside it: \(why)", path: output)
        }
        for i in 0..<k {
            let j = reversed ? n - 1 - (offset + i) : offset + i
            left[j] = scratch[2 * i]; right[j] = scratch[2 * i + 1]
        }
    }
}
