import Foundation

/// Every frame of a movie as 8-bit luma, decoded by the ffmpeg CLI (the outside checker).
struct LumaVideo {
    let width: Int, height: Int
    let frames: [[UInt8]]

    static func decode(_ url: URL) throws -> LumaVideo {
        let size = try Shell.check("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                                        "-of", "csv=p=0", url.path])
        let dims = String(decoding: size, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let data = try Shell.check("/usr/bin/ffmpeg", ["-v", "error", "-i", url.path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        var (w, h) = (dims[0], dims[1])
        let rotated = try Shell.check("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                                                           "-of", "csv=p=0", url.path])
        if let r = Int(String(decoding: rotated, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), abs(r) % 180 == 90 { swap(&w, &h) }
        let bytes = [UInt8](data)
        let n = w * h
        guard n > 0, bytes.count % n == 0 else { throw Shell.Failure(description: "\(url.path): \(bytes.count) bytes is not a whole number of \(w)x\(h) frames") }
        return LumaVideo(width: w, height: h, frames: (0..<(bytes.count / n)).map { Array(bytes[($0 * n)..<(($0 + 1) * n)]) })
    }
}

/// Where a barcode is in a frame being read: its first cell's top-left corner and cell size.
struct BarcodeRegion {
    var x0: Double, y0: Double, cell: Double

    /// Band s of an unscaled fixture with cells of side c.
    static func band(_ s: Int, c: Double = 16) -> BarcodeRegion { BarcodeRegion(x0: 2 * c, y0: Double(1 + 2 * s) * c, cell: c) }

    func scaled(by k: Double, offsetX: Double, offsetY: Double) -> BarcodeRegion {
        BarcodeRegion(x0: x0 * k + offsetX, y0: y0 * k + offsetY, cell: cell * k)
    }
}

/// Reads the identity strip: 16 cells; cell 0 white (the marker), cells 1-3 the source id,
/// cells 4-15 the frame index, least significant bit first. The strip sits in a black margin of
/// half a cell: a white marker with black to its left is a strip; bright green (luma 145) is not.
enum Barcode {
    static func read(_ frame: [UInt8], width: Int, region: BarcodeRegion) -> (source: Int, index: Int)? {
        let height = frame.count / width
        func bit(_ i: Int) -> Bool? {
            // The mean of the centre half of the cell.
            let x = region.x0 + (Double(i) + 0.25) * region.cell, y = region.y0 + 0.25 * region.cell
            let x1 = x + region.cell / 2, y1 = y + region.cell / 2
            var sum = 0, n = 0
            for py in Int(y.rounded(.up))..<max(Int(y.rounded(.up)) + 1, Int(y1.rounded(.down))) {
                for px in Int(x.rounded(.up))..<max(Int(x.rounded(.up)) + 1, Int(x1.rounded(.down))) {
                    guard px >= 0, py >= 0, px < width, py < height else { return nil }
                    sum += Int(frame[py * width + px]); n += 1
                }
            }
            return n > 0 ? sum / n >= 128 : nil
        }
        guard bit(0) == true else { return nil }
        // The margin left of the marker must be black.
        let mx = Int((region.x0 - region.cell / 4).rounded(.down)), my = Int((region.y0 + region.cell / 2).rounded(.down))
        guard mx >= 0, my >= 0, mx < width, my < height, frame[my * width + mx] < 80 else { return nil }
        var source = 0, index = 0
        for b in 0..<3 { guard let v = bit(1 + b) else { return nil }; if v { source |= 1 << b } }
        for b in 0..<12 { guard let v = bit(4 + b) else { return nil }; if v { index |= 1 << b } }
        return (source, index)
    }
}
