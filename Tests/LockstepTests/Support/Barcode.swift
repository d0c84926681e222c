import Foundation

/// Every frame of a movie's first video stream as 8-bit luma, decoded by the ffmpeg CLI (the
/// outside checker): `ffmpeg -v error -i FILE -fps_mode passthrough -pix_fmt gray`, one output
/// frame per decoded frame (nothing dropped or duplicated), in presentation order.
///
/// The bytes are those of `-f rawvideo -pix_fmt gray`, framed as yuv4mpegpipe so that the size
/// comes from ffmpeg's own output (after autorotation, odd sizes included). `gray` is full range:
/// video white (Y 235) reads 255 and video black (Y 16) reads 0.
struct LumaVideo {
    let width: Int, height: Int
    let frames: [[UInt8]]

    /// `filter`: an ffmpeg filter chain run on the pictures first (a matrix conversion).
    static func decode(_ url: URL, filter: String? = nil) throws -> LumaVideo {
        let data = try Shell.check(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough"]
                + (filter.map { ["-vf", $0] } ?? []) + ["-pix_fmt", "gray", "-f", "yuv4mpegpipe", "-"])
        return try parseY4M([UInt8](data), name: url.lastPathComponent)
    }

    /// The pictures as `decode` gives them and the sound as `AudioAnalysis.decodeMono` does (mono
    /// at 48 kHz), from one run of the ffmpeg CLI with the same options for each output: the
    /// pictures to a temporary y4m file (removed), the sound to stdout. One launch and one
    /// demuxing instead of two; the bytes are the same as the two runs'.
    static func decodeWithSound(_ url: URL) throws -> (video: LumaVideo, sound: [Float]) {
        let y4m = FileManager.default.temporaryDirectory.appendingPathComponent("luma-\(UUID().uuidString.prefix(8)).y4m")
        defer { try? FileManager.default.removeItem(at: y4m) }
        let data = try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", url.path,
                "-map", "0:v:0", "-fps_mode", "passthrough", "-pix_fmt", "gray", "-f", "yuv4mpegpipe", y4m.path,
                "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"
            ])
        let video = try parseY4M([UInt8](try Data(contentsOf: y4m)), name: url.lastPathComponent)
        return (video, data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
    }

    static func parseY4M(_ bytes: [UInt8], name: String) throws -> LumaVideo {
        func fail(_ why: String) -> Shell.Failure { Shell.Failure(description: "\(name): \(why)") }
        func line(from start: Int) -> (String, next: Int)? {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else { return nil }
            return (String(decoding: bytes[start..<end], as: UTF8.self), end + 1)
        }
        guard let (header, first) = line(from: 0), header.hasPrefix("YUV4MPEG2 ") else { throw fail("not a yuv4mpeg stream") }
        var w = 0, h = 0
        for field in header.split(separator: " ") {
            if field.hasPrefix("W") { w = Int(field.dropFirst()) ?? 0 }
            if field.hasPrefix("H") { h = Int(field.dropFirst()) ?? 0 }
            if field.hasPrefix("C"), !field.hasPrefix("Cmono") { throw fail("luma expected, got \(field)") }
        }
        guard w > 0, h > 0 else { throw fail("no size in \(header)") }
        var frames: [[UInt8]] = []
        var at = first
        while at < bytes.count {
            guard let (tag, data) = line(from: at), tag.hasPrefix("FRAME"), data + w * h <= bytes.count else {
                throw fail("cut frame \(frames.count) at byte \(at)")
            }
            frames.append(Array(bytes[data..<(data + w * h)]))
            at = data + w * h
        }
        return LumaVideo(width: w, height: h, frames: frames)
    }
}

/// Where a barcode is in the frame being read: its first cell's top-left corner and the cell
/// side, in pixels of that frame. Fractional values are fine (scaled layouts).
struct BarcodeRegion {
    var x0: Double, y0: Double, cell: Double
}

extension BarcodeRegion {
    /// Band s of an unscaled fixture with cells of side c: x0 = 2c, y0 = (1 + 2s)c.
    static func band(_ s: Int, c: Double = 16) -> BarcodeRegion { BarcodeRegion(x0: 2 * c, y0: Double(1 + 2 * s) * c, cell: c) }

    /// The same strip after the whole frame was scaled by k and put at (offsetX, offsetY).
    func scaled(by k: Double, offsetX: Double, offsetY: Double) -> BarcodeRegion {
        BarcodeRegion(x0: x0 * k + offsetX, y0: y0 * k + offsetY, cell: cell * k)
    }
}

/// Reads the identity strip: 16 cells in a row; cell 0 white (the marker), cells 1-3 bits 0-2 of
/// the source id, cells 4-15 bits 0-11 of the frame index; white (>= 128) is 1, black is 0. Each
/// cell is the mean of its centre 50% (a quarter cell in from each side).
///
/// nil if the marker cell is not white, or if the margin just left of it is not black (every
/// fixture draws its strip in a black box: a white marker on green, luma 150 in `gray`, or on a
/// white picture is no strip), or if the strip is not inside the frame.
enum Barcode {
    static func read(_ frame: [UInt8], width: Int, region: BarcodeRegion) -> (source: Int, index: Int)? {
        guard let bits = cellMeans(frame, width: width, region: region)?.map({ $0 >= 128 }) else { return nil }
        guard bits[0] else { return nil }
        // The margin: x in [x0 - 3c/8, x0 - c/8), the centre half vertically.
        let c = region.cell
        guard
            let margin = mean(
                frame, width: width, x: (region.x0 - 0.375 * c, region.x0 - 0.125 * c),
                y: (region.y0 + 0.25 * c, region.y0 + 0.75 * c)), margin < 128
        else { return nil }
        var source = 0, index = 0
        for b in 0..<3 where bits[1 + b] { source |= 1 << b }
        for b in 0..<12 where bits[4 + b] { index |= 1 << b }
        return (source, index)
    }

    /// The 16 cell means (centre 50% of each cell), or nil if any falls outside the frame.
    static func cellMeans(_ frame: [UInt8], width: Int, region: BarcodeRegion) -> [Double]? {
        let c = region.cell
        var means: [Double] = []
        for i in 0..<16 {
            let x = region.x0 + Double(i) * c
            guard let m = mean(frame, width: width, x: (x + 0.25 * c, x + 0.75 * c), y: (region.y0 + 0.25 * c, region.y0 + 0.75 * c))
            else { return nil }
            means.append(m)
        }
        return means
    }

    /// Mean of the pixels whose centres lie in [x.0, x.1) x [y.0, y.1); at least the pixel under
    /// the middle of the span.
    static func mean(_ frame: [UInt8], width: Int, x: (Double, Double), y: (Double, Double)) -> Double? {
        guard width > 0 else { return nil }
        let height = frame.count / width
        func pixels(_ a: Double, _ b: Double) -> ClosedRange<Int> {
            let lo = Int((a - 0.5).rounded(.up)), hi = Int((b - 0.5).rounded(.up)) - 1
            if hi >= lo { return lo...hi }
            let mid = Int(((a + b) / 2).rounded(.down))
            return mid...mid
        }
        let xs = pixels(x.0, x.1), ys = pixels(y.0, y.1)
        guard xs.lowerBound >= 0, ys.lowerBound >= 0, xs.upperBound < width, ys.upperBound < height else { return nil }
        var sum = 0
        for py in ys { for px in xs { sum += Int(frame[py * width + px]) } }
        return Double(sum) / Double(xs.count * ys.count)
    }
}
