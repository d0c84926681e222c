import Compositor

/// What `lockstep testsrc` paints on frame k: a grey picture (never mistaken for a letterbox
/// bar), the machine-readable `FrameCode`, and for a person a marker that sweeps a track once a
/// second (one step per frame), the frame number and the timecode in Lockstep's own bitmap font.
public enum TestPicture {
    static let trackTop = 0.82, trackHeight = 0.06
    static let track = YUVColor(y: 40, u: 128, v: 128)

    public static func paint(frame k: Int, frameRate: Rational, into image: YUVImage) {
        PlaneKernels.fill(image, FrameCode.background)
        FrameCode.paint(k, into: image)
        let steps = max(1, Int((frameRate.seconds).rounded()))
        let w = Double(image.width), h = Double(image.height)
        let x0 = Int(w * 0.05), x1 = Int(w * 0.95)
        let y0 = Int(h * trackTop), y1 = Int(h * (trackTop + trackHeight))
        FrameCode.fill(image, Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), track)
        let cell = Double(x1 - x0) / Double(steps)
        let mx = x0 + Int(cell * Double(k % steps))
        FrameCode.fill(image, Rect(x: mx, y: y0, width: max(2, Int(cell)), height: y1 - y0), FrameCode.white)
        // Two lines between the code and the track, sized for "00:00:00:00" to fill 60% of the width.
        let scale = max(1, Int(w * 0.6) / BitmapFont.width(characters: 11))
        let lineHeight = BitmapFont.height(scale: scale) + 2 * scale
        let top = Int(h * 0.2)
        for (i, line) in ["frame \(k)", timecode(frame: k, frameRate: frameRate)].enumerated() {
            let x = (image.width - BitmapFont.width(of: line, scale: scale)) / 2
            BitmapFont.draw(line, into: image, x: x, y: top + i * lineHeight, scale: scale, color: FrameCode.white)
        }
    }

    /// HH:MM:SS:FF for frame k, counting whole frames per second at the rounded rate
    /// (non-drop-frame, as a person reads it off the picture).
    public static func timecode(frame k: Int, frameRate: Rational) -> String {
        let perSecond = max(1, Int(frameRate.seconds.rounded()))
        let ff = k % perSecond, s = k / perSecond
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60)):\(two(ff))"
    }
}
