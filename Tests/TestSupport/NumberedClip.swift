import Foundation

/// A clip made by the ffmpeg CLI whose flat frames say their own number: luma 16 + 2 (n mod 100),
/// blue chroma 16 + 8 floor(n / 100), H.264 with B-frames and a keyframe every `gop` frames, at
/// 30 fps. The frames are drawn by geq at 32x18 and scaled up by pixel repetition (geq evaluates
/// its expressions per pixel: a quarter of the CPU of drawing them at 320x180, the same file).
/// What a seek test needs: a cut that starts decoding at the wrong frame shows other numbers.
public enum NumberedClip {
    /// Writes the clip to `path`: `seconds` long, `size` any even WxH (the frames are flat, so
    /// neighbour scaling keeps every value), with `sound` an ffmpeg lavfi audio source.
    public static func make(_ path: String, seconds: Int, size: String, gop: Int, sound: String) throws {
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i",
                "color=c=gray:size=32x18:rate=30:duration=\(seconds),format=yuv420p,geq=lum='16+2*mod(N,100)':cb='16+8*floor(N/100)':cr=128,"
                    + "scale=\(size.replacingOccurrences(of: "x", with: ":")):flags=neighbor,setsar=1",
                "-f", "lavfi", "-i", "\(sound):duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-g", String(gop), "-bf", "2",
                "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path
            ])
    }

    /// Each frame's mean luma and blue chroma, as the ffmpeg CLI decodes `path` (signalstats).
    public static func means(_ path: String) throws -> [[Double]] {
        let out = try Processes.check(
            "ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats", "-show_entries", "frame_tags=lavfi.signalstats.YAVG,lavfi.signalstats.UAVG", "-of", "csv=p=0"])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
    }
}
