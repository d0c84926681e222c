import CFFmpeg
import Compositor

extension SeekingVideoReader {
    /// Presentation frames `range` as `decode(_:_:)` hands them, deinterlaced as a forward pass
    /// over the whole stream deinterlaces them (`MovieReader`, `--deinterlace frame`): FFmpeg's
    /// bwdif makes picture i from frames i-1, i and i+1 alone (yadif's three-frame window; the
    /// stream's first and last frames use their own edge rule), so the range is decoded with one
    /// frame of context on each side, where the stream has one, through a deinterlacer of its
    /// own, and only the range's pictures are handed over. One picture per frame (`.frame`);
    /// `.off` is `decode(_:_:)`. Progressive pictures (none flagged interlaced, the stream
    /// saying nothing) pass as they are, decided at the first picture this reads, as the
    /// forward reader decides at its first.
    public func decode(_ range: Range<Int>, deinterlace mode: DeinterlaceMode, _ body: (Int, Frame) throws -> Void) throws {
        precondition(mode != .field, "reverse deinterlaces at frame rate only")
        if mode == .off || interlaced == false { return try decode(range, body) }
        guard !range.isEmpty else { return }
        if interlaced == nil {
            // The first picture says: a progressive input is read as it is (no frame decoded
            // more); an interlaced one stops here and is read again with its context.
            do {
                try decode(range) { i, f in
                    if interlaced == nil {
                        interlaced = isInterlaced(f.pointer.pointee)
                        if interlaced == true { throw InterlacedRestart() }
                    }
                    try body(i, f)
                }
                return
            } catch is InterlacedRestart {}
        }
        let wide = max(0, range.lowerBound - 1)..<min(index.frameCount, range.upperBound + 1)
        var filter: Deinterlacer?
        var k = wide.lowerBound  // the frame the filter's next picture shows
        let tb = video.timeBase
        func drain() throws {
            guard let filter else { return }
            while try filter.pull(into: deinterlaced.pointer) == .produced {
                defer { deinterlaced.unref() }
                if range.contains(k) { try body(k, deinterlaced) }
                k += 1
            }
        }
        try decode(wide) { i, f in
            let picture = f.pointer.pointee
            if filter == nil {
                let flagged = picture.interlaced_frame != 0
                filter = try Deinterlacer(
                    first: picture, timeBase: AVRational(num: Int32(tb.num), den: Int32(tb.den)), mode: .frame,
                    topFieldFirst: flagged ? nil : (video.fieldOrder?.topFieldFirst ?? true), everyFrame: !flagged, path: path)
            }
            // The filter times pictures by pts: the decoder's best guess of it.
            f.pointer.pointee.pts = picture.best_effort_timestamp
            try filter!.push(f.pointer)
            try drain()
        }
        if let filter {
            try filter.push(nil)
            try drain()
        }
    }

    /// As `MovieReader` decides at its first picture: flagged interlaced, or the stream says so.
    private func isInterlaced(_ picture: AVFrame) -> Bool {
        picture.interlaced_frame != 0 || video.fieldOrder?.isInterlaced == true
    }
}

/// The first picture was interlaced: the pass is read again with its frames of context.
private struct InterlacedRestart: Error {}
