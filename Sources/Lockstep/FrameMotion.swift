import Compositor
import Media
import Motion

/// The picture's own motion, frame to frame: what the gyro is matched against.
public struct FrameMotionSeries: Sendable {
    /// The video as stored and as shown (rotation applied), pixels.
    public var displaySize: Size
    /// Every decoded frame's time, video clock, ns from the first frame's pts (VFR-exact).
    public var frameTimes: [Int64]
    /// Global shift between consecutive frames, in pixels of the displayed picture.
    public var shifts: [VideoShift]
}

/// Decodes a movie once and measures the global shift between consecutive frames by phase
/// correlation on downscaled luma.
public enum FrameMotionExtractor {
    public static func extract(path: String) throws -> FrameMotionSeries {
        let reader = try MovieReader(path: path, audio: false)
        let size = reader.video.displaySize
        var correlator = PhaseCorrelator(size: size.height >= 256 && size.width >= 256 ? 256 : 128)
        var shifts: [VideoShift] = []
        var times: [Int64] = []
        var last: Int64?
        let decoded = Frame(), frame = Frame()
        // Pictures as displayed (rotation applied), in yuv420p at the display size.
        let conformer = try Conformer(place: size, picture: Rect(x: 0, y: 0, width: size.width, height: size.height),
                                      fill: .black, rotation: reader.video.rotation)
        var luma = [UInt8](repeating: 0, count: size.width * size.height)
        while case .video(let picture) = try reader.next(into: decoded, audioSink: { _ in }) {
            try conformer.fit(decoded, into: frame)
            frame.withImage { image in
                for y in 0..<image.height { luma.withUnsafeMutableBufferPointer { (($0.baseAddress! + y * image.width)).update(from: image.y.row(y), count: image.width) } }
            }
            let (samples, k) = PhaseCorrelator.downscale(luma, width: size.width, height: size.height, size: correlator.size)
            let pts = picture.source.pts
            let t = Rational.rescale(pts.value, from: pts.timeBase, to: Rational(1, 1_000_000_000))
            if let s = correlator.next(samples), let from = last {
                shifts.append(VideoShift(from: from, to: t, dx: s.dx * Double(k), dy: s.dy * Double(k)))
            }
            last = t
            times.append(t)
        }
        return FrameMotionSeries(displaySize: size, frameTimes: times, shifts: shifts)
    }
}
