#if canImport(Glibc)
    import Glibc
#endif

/// Turns the telemetry track FFmpeg's MP4/MOV muxer wrote as GoPro's `gpmd` into a CAMM track
/// (Google's Camera Motion Metadata), in a finished file not yet committed, by renaming boxes in
/// place: same sizes, no other byte moved.
///
/// Why this is a CAMM track: movenc.c (libavformat 59) has no `camm` sample entry, but for a
/// data stream tagged `gpmd` it writes what CAMM asks for except the entry's name: a `meta`
/// handler (CAMM's subComponentType), the handler name the stream's metadata gives
/// ("CameraMetadataMotionHandler"), a sample entry that is a bare SampleEntry (8-byte header, 6
/// reserved bytes, data_reference_index 1; CAMM's `CameraMotionMetadataSampleEntry` adds no
/// field) and the samples as given, each packet one sample with its own time. Two names differ:
/// the `stsd` entry's `gpmd` (renamed `camm`) and the empty `gpmd` box movenc.c puts in the
/// QuickTime `gmhd` header (renamed `free`: a box every reader skips, so no GoPro marker is
/// left). movenc.c's entry also ends with 4 reserved zero bytes after data_reference_index,
/// which CAMM's entry does not have (16 bytes, not 20): they are given to that `free` box, which
/// lies earlier in the same `minf` (`trimmedEntry`), so the entry is the spec's size and no byte
/// outside `minf` moves (no chunk offset changes, the file keeps its size).
enum CAMMTrackPatch {
    /// One fourcc to write: at `offset` in the file, `from` becomes `to`.
    struct Rename: Equatable {
        var offset: Int64
        var from: String
        var to: String
    }

    /// Renames the `gpmd` track of the MP4/MOV file at `path` to `camm`. Throws (one line naming
    /// the file) when the file does not hold exactly one such track as movenc.c writes it.
    static func apply(path: String) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError("cannot open the output to mark its CAMM track", path: path) }
        defer { close(fd) }
        guard let renames = renames(fd), !renames.isEmpty else {
            throw MediaError("cannot mark the telemetry track as CAMM: no gpmd track as FFmpeg writes it", path: path)
        }
        for r in renames {
            let bytes = Array(r.to.utf8)
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4, off_t(r.offset)) }
            guard n == 4 else { throw MediaError("cannot mark the telemetry track as CAMM: a write failed", path: path) }
        }
        if let (minf, bytes) = trimmedEntry(fd) {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(minf)) }
            guard n == bytes.count else { throw MediaError("cannot mark the telemetry track as CAMM: a write failed", path: path) }
        }
        guard fsync(fd) == 0 else { throw MediaError("cannot mark the telemetry track as CAMM: fsync failed", path: path) }
    }

    /// The renames for the one `gpmd` track (nil: none, or more than one, or a box tree that does
    /// not add up). Reads box headers only, checking each fourcc before naming it.
    static func renames(_ fd: Int32) -> [Rename]? {
        let end = lseek(fd, 0, SEEK_END)
        guard end > 0, let top = MP4Boxes.children(fd, 0..<Int64(end)) else { return nil }
        let moovs = top.filter { $0.type == "moov" }
        guard moovs.count == 1, !top.contains(where: { $0.type == "moof" }), let inMoov = MP4Boxes.children(fd, moovs[0].body) else { return nil }
        var found: [[Rename]] = []
        for trak in inMoov where trak.type == "trak" {
            guard let mdia = child(fd, trak, "mdia"), let hdlr = child(fd, mdia, "hdlr"), handlerType(fd, hdlr) == "meta",
                let minf = child(fd, mdia, "minf"), let stbl = child(fd, minf, "stbl"), let stsd = child(fd, stbl, "stsd"),
                let entry = firstEntry(fd, stsd), entry.type == "gpmd"
            else { continue }
            var renames = [Rename(offset: entry.at + 4, from: "gpmd", to: "camm")]
            if let gmhd = child(fd, minf, "gmhd"), let marks = MP4Boxes.children(fd, gmhd.body) {
                for m in marks where m.type == "gpmd" { renames.append(Rename(offset: m.body.lowerBound - 4, from: "gpmd", to: "free")) }
            }
            found.append(renames)
        }
        return found.count == 1 ? found[0] : nil
    }

    /// The renamed track's `minf` (where it starts, its new bytes, the same length) with its
    /// `camm` entry cut to CAMM's 16 bytes: the entry's last 4 bytes (movenc.c's reserved zeros)
    /// go, the bytes from the `free` box's end to there move 4 on, and that box grows by 4 (its
    /// `gmhd` too; `stbl`, `stsd` and the entry shrink by 4). Nil, leaving the 20-byte entry
    /// (which readers skip past), when the track is not laid out so: no `free` mark in a `gmhd`
    /// before the `stbl`, an entry not of 20 bytes ending in zeros, or a box with a 64-bit size.
    static func trimmedEntry(_ fd: Int32) -> (Int64, [UInt8])? {
        let end = lseek(fd, 0, SEEK_END)
        guard end > 0, let top = MP4Boxes.children(fd, 0..<Int64(end)), let moov = top.first(where: { $0.type == "moov" }),
            let inMoov = MP4Boxes.children(fd, moov.body)
        else { return nil }
        for trak in inMoov where trak.type == "trak" {
            guard let mdia = child(fd, trak, "mdia"), let minf = child(fd, mdia, "minf"), let stbl = child(fd, minf, "stbl"),
                let stsd = child(fd, stbl, "stsd"), let entry = firstEntry(fd, stsd), entry.type == "camm",
                let gmhd = child(fd, minf, "gmhd"), let mark = child(fd, gmhd, "free"),
                gmhd.body.upperBound <= stbl.body.lowerBound
            else { continue }
            let start = minf.body.lowerBound - 8
            guard var bytes = read(fd, at: start, count: Int(minf.body.upperBound - start)) else { return nil }
            func at(_ offset: Int64) -> Int { Int(offset - start) }
            func size(_ i: Int) -> UInt32 { bytes[i..<(i + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
            func setSize(_ i: Int, _ v: UInt32) { for k in 0..<4 { bytes[i + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * k)) } }
            // Every header to rewrite must be a plain 8-byte one, its size its body's + 8.
            let headers = [(gmhd.body, at(gmhd.body.lowerBound - 8)), (mark.body, at(mark.body.lowerBound - 8)), (stbl.body, at(stbl.body.lowerBound - 8)), (stsd.body, at(stsd.body.lowerBound - 8))]
            guard headers.allSatisfy({ body, i in Int64(size(i)) == Int64(body.count) + 8 }) else { return nil }
            let e = at(entry.at)
            guard size(e) == 20, bytes[(e + 16)..<(e + 20)].allSatisfy({ $0 == 0 }) else { return nil }
            let from = at(mark.body.upperBound), to = e + 16
            bytes.replaceSubrange((from + 4)..<(to + 4), with: bytes[from..<to])
            bytes.replaceSubrange(from..<(from + 4), with: [0, 0, 0, 0])
            setSize(headers[0].1, size(headers[0].1) + 4)
            setSize(headers[1].1, size(headers[1].1) + 4)
            setSize(headers[2].1 + 4, size(headers[2].1 + 4) - 4)
            setSize(headers[3].1 + 4, size(headers[3].1 + 4) - 4)
            setSize(e + 4, 16)
            return (start, bytes)
        }
        return nil
    }

    private static func child(_ fd: Int32, _ box: MP4Boxes.Box, _ type: String) -> MP4Boxes.Box? {
        guard let kids = MP4Boxes.children(fd, box.body) else { return nil }
        let matching = kids.filter { $0.type == type }
        return matching.count == 1 ? matching[0] : nil
    }

    /// An `hdlr`'s handler_type: after version and flags (4 bytes) and pre_defined (4).
    private static func handlerType(_ fd: Int32, _ hdlr: MP4Boxes.Box) -> String? {
        guard hdlr.body.count >= 12, let b = read(fd, at: hdlr.body.lowerBound + 8, count: 4) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }

    /// An `stsd`'s first entry (after version and flags, and entry_count, 1 here): where its
    /// header starts and its type; nil unless there is exactly one entry and it fits the box.
    private static func firstEntry(_ fd: Int32, _ stsd: MP4Boxes.Box) -> (at: Int64, type: String)? {
        guard stsd.body.count >= 16, let b = read(fd, at: stsd.body.lowerBound, count: 16) else { return nil }
        let count = b[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
        let size = b[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
        guard count == 1, size >= 16, Int64(size) <= Int64(stsd.body.count) - 8 else { return nil }
        return (stsd.body.lowerBound + 8, String(decoding: b[12..<16], as: UTF8.self))
    }

    private static func read(_ fd: Int32, at offset: Int64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return n == count ? bytes : nil
    }
}
