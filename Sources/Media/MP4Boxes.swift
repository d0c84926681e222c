#if canImport(Glibc)
    import Glibc
#endif

/// Just enough of an MP4/MOV box tree to give a track's composition offsets. FFmpeg's index of
/// a `mov` stream holds decode times only (mov.c fills `AVIndexEntry.timestamp` from `stts`);
/// the presentation time adds the `ctts` offset, which no public API gives. Reads box headers
/// (8 or 16 bytes each, and a `tkhd`'s first 24 bytes) and the one `ctts` payload, never sample
/// data: a few dozen small reads and one of 8 bytes per `ctts` run, whatever the length.
enum MP4Boxes {
    /// A track's `ctts` as mov.c reads it.
    enum CompositionOffsets: Equatable {
        /// No `ctts` box, or one without entries: mov.c sets pts = dts for every sample.
        case none
        /// One offset per sample (decode order), and the shift mov.c adds to every pts
        /// (`dts_shift`: the largest negation of a negative offset, the last two entries left
        /// out as mov_read_ctts leaves them out).
        case perSample([Int32], shift: Int64)
    }

    /// The track's composition offsets, checked against `sampleCount` (the track's sample
    /// count from `stts`); nil: cannot tell or not trustworthy (not MP4, a malformed or cut
    /// box, a fragmented file whose samples and offsets live in `moof` boxes, no track with
    /// that id, two `ctts` boxes, counts that do not add up to the sample count, an offset
    /// mov.c would call invalid, or a version 0 offset that only reads as signed).
    static func compositionOffsets(path: String, trackID: Int32, sampleCount: Int) -> CompositionOffsets? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let stbl = sampleTableBoxes(fd, trackID: trackID) else { return nil }
        let ctts = stbl.filter { $0.type == "ctts" }
        guard let box = ctts.first else { return CompositionOffsets.none }
        guard ctts.count == 1 else { return nil }
        return parseCTTS(fd, box.body, sampleCount: sampleCount)
    }

    /// The boxes inside the `stbl` of the track with `trackID` (nil: see `compositionOffsets`).
    private static func sampleTableBoxes(_ fd: Int32, trackID: Int32) -> [Box]? {
        let end = lseek(fd, 0, SEEK_END)
        guard end > 0, let top = children(fd, 0..<Int64(end)) else { return nil }
        if top.contains(where: { $0.type == "moof" }) { return nil }
        let moovs = top.filter { $0.type == "moov" }
        guard moovs.count == 1, let inMoov = children(fd, moovs[0].body) else { return nil }
        if inMoov.contains(where: { $0.type == "mvex" }) { return nil }
        for trak in inMoov where trak.type == "trak" {
            guard let kids = children(fd, trak.body),
                let tkhd = kids.first(where: { $0.type == "tkhd" })
            else { return nil }
            guard trackID == self.trackID(fd, tkhd.body) else { continue }
            guard let mdia = kids.first(where: { $0.type == "mdia" }), let inMdia = children(fd, mdia.body),
                let minf = inMdia.first(where: { $0.type == "minf" }), let inMinf = children(fd, minf.body),
                let stbl = inMinf.first(where: { $0.type == "stbl" })
            else { return nil }
            return children(fd, stbl.body)
        }
        return nil
    }

    /// A `ctts` payload: version (1 byte), flags (3), entry_count (4), then entry_count runs of
    /// (sample_count, sample_offset), 4 bytes each. Bounded before reading: no more runs than
    /// samples (a run holds at least one), and the runs must fit the box.
    private static func parseCTTS(_ fd: Int32, _ body: Range<Int64>, sampleCount: Int) -> CompositionOffsets? {
        guard body.count >= 8, let head = read(fd, at: body.lowerBound, count: 8, atLeast: 8) else { return nil }
        let entries = Int(bigEndian(head, 4, 4))
        guard entries > 0 else { return CompositionOffsets.none }
        guard entries <= sampleCount, Int64(entries) * 8 <= Int64(body.count) - 8,
            let runs = read(fd, at: body.lowerBound + 8, count: entries * 8, atLeast: entries * 8)
        else { return nil }
        return offsets(version: head[0], runs: runs, entries: entries, sampleCount: sampleCount)
    }

    /// The pure half of `parseCTTS`: `runs` holds `entries` big-endian (count, offset) pairs.
    static func offsets(version: UInt8, runs: [UInt8], entries: Int, sampleCount: Int) -> CompositionOffsets? {
        guard version <= 1, runs.count >= entries * 8 else { return nil }
        var perSample: [Int32] = []
        perSample.reserveCapacity(sampleCount)
        var shift: Int64 = 0
        for i in 0..<entries {
            let count = bigEndian(runs, i * 8, 4), raw = bigEndian(runs, i * 8 + 4, 4)
            // mov.c reads both fields as signed ints whatever the version, skips runs whose
            // count reads as <= 0 and drops the whole table for an offset beyond 2^28 (not the
            // last two). Such tables are not what a camera or encoder writes: read packets.
            guard count > 0, count <= UInt64(Int32.max), count <= UInt64(sampleCount - perSample.count) else { return nil }
            let offset = Int32(truncatingIfNeeded: raw)
            if version == 0 && offset < 0 { return nil }  // unsigned in the spec, signed in mov.c
            guard offset.magnitude <= 1 << 28 else { return nil }
            if i + 2 < entries, offset < 0 { shift = max(shift, -Int64(offset)) }
            perSample.append(contentsOf: repeatElement(offset, count: Int(count)))
        }
        guard perSample.count == sampleCount else { return nil }
        return .perSample(perSample, shift: shift)
    }

    /// The track's stored sample durations (`stts`, the track's timescale, decode order),
    /// checked against `sampleCount`; nil as for `compositionOffsets`, or when the runs do not
    /// add up to the count. FFmpeg's packets may not carry them: mov.c fits a track's last
    /// sample to the track's declared length (the shared HERO7's `gpmd`: 1.001 s stored, 1.735 s
    /// read), and a reader timing samples by the stored durations (telemetry-parser) then reads
    /// a copy written with FFmpeg's duration late.
    static func sampleDurations(path: String, trackID: Int32, sampleCount: Int) -> [UInt32]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard sampleCount > 0, let stbl = sampleTableBoxes(fd, trackID: trackID) else { return nil }
        let stts = stbl.filter { $0.type == "stts" }
        guard stts.count == 1, let body = Optional(stts[0].body), body.count >= 8,
            let head = read(fd, at: body.lowerBound, count: 8, atLeast: 8)
        else { return nil }
        let entries = Int(bigEndian(head, 4, 4))
        guard entries > 0, entries <= sampleCount, Int64(entries) * 8 <= Int64(body.count) - 8,
            let runs = read(fd, at: body.lowerBound + 8, count: entries * 8, atLeast: entries * 8)
        else { return nil }
        return durations(runs: runs, entries: entries, sampleCount: sampleCount)
    }

    /// The pure half of `sampleDurations`: `runs` holds `entries` big-endian (sample_count,
    /// sample_delta) pairs; nil when they do not add up to `sampleCount` exactly.
    static func durations(runs: [UInt8], entries: Int, sampleCount: Int) -> [UInt32]? {
        guard runs.count >= entries * 8 else { return nil }
        var out: [UInt32] = []
        out.reserveCapacity(sampleCount)
        for i in 0..<entries {
            let count = bigEndian(runs, i * 8, 4), delta = UInt32(bigEndian(runs, i * 8 + 4, 4))
            guard count <= UInt64(sampleCount - out.count) else { return nil }
            out.append(contentsOf: repeatElement(delta, count: Int(count)))
        }
        return out.count == sampleCount ? out : nil
    }

    /// The body of `moov/udta/GPMF`, where GoPro writes the recording's settings (HERO7 and
    /// later: `EISE`/`EISA` stabilisation, lens, firmware) as a GPMF payload; nil when there is
    /// none or it is larger than `limit` bytes (GoPro's is a few kB).
    static func userDataGPMF(path: String, limit: Int64 = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let end = lseek(fd, 0, SEEK_END)
        guard end > 0, let top = children(fd, 0..<Int64(end)),
            let moov = top.first(where: { $0.type == "moov" }), let inMoov = children(fd, moov.body),
            let udta = inMoov.first(where: { $0.type == "udta" }), let inUdta = children(fd, udta.body),
            let gpmf = inUdta.first(where: { $0.type == "GPMF" })
        else { return nil }
        let count = gpmf.body.upperBound - gpmf.body.lowerBound
        guard count > 0, count <= limit else { return nil }
        return read(fd, at: gpmf.body.lowerBound, count: Int(count), atLeast: Int(count))
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
            // `size` is the file's word (up to 2^63 - 1 in a 64-bit size): compared with the room
            // left, never added to `at`, which would overflow.
            guard size >= header, size <= range.upperBound - at else { return nil }
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
