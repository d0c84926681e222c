#if canImport(Glibc)
import Glibc
#endif

/// Just enough of an MP4/MOV box tree to say whether a track's samples are shown at their
/// decode times. FFmpeg's index of a `mov` stream holds decode times only (mov.c fills
/// `AVIndexEntry.timestamp` from `stts`); the presentation time adds the `ctts` offset, which
/// no public API gives. Without a `ctts` box, mov.c sets pts = dts for every sample, so the
/// index alone is the packets' timestamps. Reads box headers only (8 or 16 bytes each, and a
/// `tkhd`'s first 24 bytes), never sample data: a few dozen small reads whatever the length.
enum MP4Boxes {
    /// False: the track has no composition offsets (pts = dts for each sample). True: it has
    /// (`ctts`). nil: cannot tell (not MP4, a malformed box, a fragmented file whose samples
    /// and offsets live in `moof` boxes, no track with that id).
    static func hasCompositionOffsets(path: String, trackID: Int32) -> Bool? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let end = lseek(fd, 0, SEEK_END)
        guard end > 0, let top = children(fd, 0..<Int64(end)) else { return nil }
        if top.contains(where: { $0.type == "moof" }) { return nil }
        let moovs = top.filter { $0.type == "moov" }
        guard moovs.count == 1, let inMoov = children(fd, moovs[0].body) else { return nil }
        if inMoov.contains(where: { $0.type == "mvex" }) { return nil }
        for trak in inMoov where trak.type == "trak" {
            guard let kids = children(fd, trak.body),
                  let tkhd = kids.first(where: { $0.type == "tkhd" }) else { return nil }
            guard trackID == self.trackID(fd, tkhd.body) else { continue }
            guard let mdia = kids.first(where: { $0.type == "mdia" }), let inMdia = children(fd, mdia.body),
                  let minf = inMdia.first(where: { $0.type == "minf" }), let inMinf = children(fd, minf.body),
                  let stbl = inMinf.first(where: { $0.type == "stbl" }), let inStbl = children(fd, stbl.body)
            else { return nil }
            return inStbl.contains { $0.type == "ctts" }
        }
        return nil
    }

    struct Box { var type: String; var body: Range<Int64> }

    /// The boxes filling `range` in order; nil if a header is cut or sizes do not add up.
    static func children(_ fd: Int32, _ range: Range<Int64>) -> [Box]? {
        var boxes: [Box] = []
        var at = range.lowerBound
        while range.upperBound - at >= 8 {
            guard let head = read(fd, at: at, count: 16, atLeast: 8) else { return nil }
            let size32 = bigEndian(head, 0, 4)
            let type = String(decoding: head[4..<8], as: UTF8.self)
            var header: Int64 = 8, size = Int64(size32)
            if size32 == 1 {
                guard head.count == 16 else { return nil }
                size = Int64(bitPattern: bigEndian(head, 8, 8)); header = 16
            } else if size32 == 0 {
                size = range.upperBound - at  // to the end of the parent
            }
            guard size >= header, at + size <= range.upperBound else { return nil }
            boxes.append(Box(type: type, body: (at + header)..<(at + size)))
            at += size
        }
        return boxes
    }

    /// A `tkhd`'s track_ID: after version and flags (4 bytes) and two times of 4 bytes
    /// (version 0) or 8 bytes (version 1).
    private static func trackID(_ fd: Int32, _ body: Range<Int64>) -> Int32? {
        guard let b = read(fd, at: body.lowerBound, count: 24, atLeast: 24), body.count >= 24 else { return nil }
        let at = b[0] == 1 ? 20 : 12
        return Int32(truncatingIfNeeded: bigEndian(b, at, 4))
    }

    private static func read(_ fd: Int32, at offset: Int64, count: Int, atLeast: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard n >= atLeast else { return nil }
        return Array(bytes[0..<n])
    }

    private static func bigEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        b[at..<(at + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
