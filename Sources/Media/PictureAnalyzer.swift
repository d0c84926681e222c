import CFFmpeg
import Compositor

/// Measures decoded pictures for the thumbnail rule (`PictureDetail`) on a small video-range
/// copy: libswscale shrinks each picture, whatever its pixel format and range, to at most
/// `side` pixels a side (its aspect kept) in a buffer made once. So the thresholds mean the same
/// for a phone's full-range 4K and a 320x240 test clip, and grain is averaged away.
public final class PictureAnalyzer {
    public let side: Int
    private let scaler = Scaler()
    private var buffer: YUVBuffer?

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
        return PictureDetail.measure(image.y, samples: side)
    }
}
