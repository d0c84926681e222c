import CFFmpeg
import Compositor

/// Measures decoded pictures for the thumbnail rule (`PictureDetail`) on a small video-range
/// copy: libswscale shrinks each picture, whatever its pixel format and range, to at most
/// `side` pixels a side (its aspect kept) in a buffer made once (two: the picture before is kept
/// to measure how much brighter each one is, `PictureDetail.rise`). So the thresholds mean the same
/// for a phone's full-range 4K and a 320x240 test clip, and grain is averaged away.
public final class PictureAnalyzer {
    public let side: Int
    private let scaler = Scaler()
    private var buffer: YUVBuffer?
    /// The picture measured last (the buffers swap: each is made once per size).
    private var previous: YUVBuffer?
    private var follows = false

    public init(side: Int = 256) {
        precondition(side >= 16)
        self.side = side
    }

    /// The detail of the picture in `frame` (left as it is).
    public func detail(of frame: Frame) throws -> PictureDetail {
        let w = frame.width, h = frame.height
        guard w > 0, h > 0 else { throw MediaError("cannot measure an empty picture") }
        let k = min(1, Double(side) / Double(max(w, h)))
        let aw = max(2, Int((Double(w) * k).rounded()) & ~1), ah = max(2, Int((Double(h) * k).rounded()) & ~1)
        if buffer?.width != aw || buffer?.height != ah { buffer = YUVBuffer(width: aw, height: ah) }
        let image = buffer!.image
        try withExtendedLifetime(frame) { try scaler.scale(frame.pointer, into: image) }
        var detail = PictureDetail.measure(image.y, samples: side)
        if follows, let previous, previous.width == aw, previous.height == ah {
            detail.rise = PictureDetail.rise(from: previous.image.y, to: image.y, samples: side)
        }
        swap(&buffer, &previous)
        follows = true
        return detail
    }

    /// The next picture does not follow the last one measured (a seek): it gets no `rise`.
    public func restart() { follows = false }
}
