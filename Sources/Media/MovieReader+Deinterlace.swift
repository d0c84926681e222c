import CFFmpeg
import Compositor

/// A video stream's colours as its container and headers say (each picture's own tags are
/// what the conformer converts; these are for `probe`, warnings and the HDR output's metadata).
public struct ColorInfo: Equatable, Sendable {
    public var tags = ColorTags()
    /// What the tags are taken to mean (untagged fields guessed), and the sentences saying so.
    public var description: ColorDescription?
    public var notes: [String] = []
    /// The mastering display and light levels (MP4 `mdcv`, `clli`).
    public var hdr = HDRMetadata()
    public var dolbyVision: DolbyVision?

    init() {}

    init(_ st: UnsafeMutablePointer<AVStream>) {
        let par = st.pointee.codecpar.pointee
        tags = ColorTags(par)
        let reading = ColorReading(par)
        description = reading.description
        notes = reading.notes
        hdr = HDRMetadata.of(st)
        dolbyVision = DolbyVision.of(st)
    }
}

/// The deinterlacer's place in a reader: the mode asked for, and once the first picture has
/// shown whether the input is interlaced, the filter.
struct InterlaceState {
    var mode = DeinterlaceMode.frame
    /// Decided at the first picture: nothing to do.
    var progressive = false
    var filter: Deinterlacer?
    /// A picture at field rate (decided at open, from the stream: the rate doubles).
    var fieldRate = false
    var flushed = false
}

extension MovieReader {
    /// Refuses what cannot be shown right: Dolby Vision profile 5 (no backward-compatible base
    /// layer: its IPTPQc2 pictures decode to false colours).
    func checkColor() throws {
        if let dv = video.color.dolbyVision, dv.profile == 5 {
            throw MediaError(
                "Dolby Vision profile 5 has no backward-compatible base layer (its pictures decode to false colours); "
                    + "export it as HDR10, HLG or SDR first", path: path)
        }
    }

    /// What to do with an interlaced input (the default: `.frame`). Call before the first read.
    /// `.field` doubles the stream's rate, frame count and time resolution in `video` (one
    /// picture per field) when the stream says it is interlaced; an input whose pictures turn
    /// out interlaced although the stream said nothing is deinterlaced at frame rate.
    public func deinterlace(_ mode: DeinterlaceMode) {
        precondition(framesOut == 0 && picturesDecoded == 0, "deinterlace(_:) after reading")
        interlace.mode = mode
        if mode == .field, video.fieldOrder?.isInterlaced == true, !interlace.fieldRate {
            interlace.fieldRate = true
            video.timeBase = video.timeBase * Rational(1, 2)
            video.frameRate = video.frameRate.map { $0 * Rational(2, 1) }
            video.nominalFrameRate = video.nominalFrameRate.map { $0 * Rational(2, 1) }
            video.statedFrameRate = video.statedFrameRate.map { $0 * Rational(2, 1) }
            video.shownFrames = video.shownFrames.map { $0 * 2 }
        }
    }

    /// Whether the pictures come through a deinterlacer, and at which rate (for messages).
    public var deinterlacing: DeinterlaceMode {
        guard let filter = interlace.filter else { return .off }
        return filter.mode
    }

    /// The next picture: the decoder's or, for an interlaced input, the deinterlacer's. The
    /// decoder's picture goes into `frame` and from there into the filter (its reference moves),
    /// so a reader holds no frame more than before.
    func receivePicture(into frame: Frame) throws -> CodecStep {
        if interlace.mode == .off || interlace.progressive { return try receiveVideo(into: frame) }
        while true {
            if let filter = interlace.filter {
                switch try filter.pull(into: frame.pointer) {
                case .produced:
                    restamp(frame, from: filter.outputTimeBase)
                    return .produced
                case .endOfStream: return .endOfStream
                case .needsInput: break
                }
            }
            switch try receiveVideo(into: frame) {
            case .produced:
                if interlace.filter == nil {
                    let f = frame.pointer.pointee
                    let flagged = f.interlaced_frame != 0, streamSays = video.fieldOrder?.isInterlaced == true
                    guard flagged || streamSays else {
                        interlace.progressive = true
                        return .produced
                    }
                    // Pictures that say they are interlaced say which field comes first, each
                    // one (parity auto); otherwise the stream's field order, for every picture.
                    interlace.filter = try Deinterlacer(
                        first: f, timeBase: input.stream(videoStream).pointee.time_base,
                        mode: interlace.fieldRate ? .field : .frame,
                        topFieldFirst: flagged ? nil : (video.fieldOrder?.topFieldFirst ?? true),
                        everyFrame: !flagged, path: path)
                }
                // The filter times pictures by pts: the decoder's best guess of it.
                frame.pointer.pointee.pts = frame.pointer.pointee.best_effort_timestamp
                try interlace.filter!.push(frame.pointer)
            case .needsInput:
                return .needsInput
            case .endOfStream:
                guard let filter = interlace.filter, !interlace.flushed else { return .endOfStream }
                interlace.flushed = true
                try filter.push(nil)
            }
        }
    }

    /// The filter's picture timed in the reader's time base: the stream's at frame rate, half
    /// of it at field rate (`deinterlace(_:)`).
    private func restamp(_ frame: Frame, from tb: AVRational) {
        let f = frame.pointer
        let pts = f.pointee.pts
        guard pts != NOPTS else { f.pointee.best_effort_timestamp = NOPTS; return }
        let out = video.timeBase
        let t = Rational.rescale(pts, from: Rational(Int64(tb.num), Int64(tb.den)), to: out)
        f.pointee.pts = t
        f.pointee.best_effort_timestamp = t
    }
}
