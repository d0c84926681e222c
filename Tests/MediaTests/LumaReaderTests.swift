import Compositor
import Foundation
import XCTest

@testable import Media

/// What motion analysis reads of a 1080p movie (the centre square 4x4 and the whole picture
/// 5x5, box averages taken in one pass over the luma plane) against the same pictures made by
/// the ffmpeg CLI's own crop and area scaler from the same movie.
final class LumaReaderTests: MediaTestCase {
    /// The luma planes ffmpeg makes of `movie` through `filter` (yuv420p out: the luma samples
    /// as they are; a conversion to gray would stretch them to full range), `width * height`
    /// bytes per frame.
    func ffmpegLuma(_ movie: String, filter: String, frames: Int, width: Int, height: Int) throws -> [UInt8] {
        let out = path("luma-\(UUID().uuidString.prefix(6)).yuv")
        try ffmpeg(["-i", movie, "-vf", filter, "-pix_fmt", "yuv420p", "-frames:v", "\(frames)", "-f", "rawvideo", out])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let frameSize = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        XCTAssertEqual(bytes.count, frames * frameSize)
        return (0..<frames).flatMap { bytes[($0 * frameSize)..<($0 * frameSize + width * height)] }
    }

    func testAt1080pBothPicturesAreWhatFFmpegsAreaScalerMakes() throws {
        let movie = path("detail-1080p.mp4")
        // Fine detail everywhere (the Mandelbrot set's edge, panned), so a box taken one sample
        // off or a row missed shows.
        try ffmpeg([
            "-f", "lavfi", "-i", "mandelbrot=s=1920x1080:rate=30:maxiter=200", "-frames:v", "3",
            "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-pix_fmt", "yuv420p", movie
        ])
        let reader = try LumaReader(path: movie, wideWidth: 384)
        XCTAssertEqual(reader.side, 256)
        XCTAssertEqual(reader.scale, 4)
        XCTAssertEqual(reader.wideSize, Size(width: 384, height: 216))
        let square = try ffmpegLuma(movie, filter: "crop=1024:1024,scale=256:256:flags=area", frames: 3, width: 256, height: 256)
        let whole = try ffmpegLuma(movie, filter: "scale=384:216:flags=area", frames: 3, width: 384, height: 216)
        XCTAssertEqual(square.count, 3 * 256 * 256)
        XCTAssertEqual(whole.count, 3 * 384 * 216)
        var centre = [UInt8](repeating: 0, count: 256 * 256), wide = [UInt8](repeating: 0, count: 384 * 216)
        for k in 0..<3 {
            let t = try centre.withUnsafeMutableBufferPointer { c in
                try wide.withUnsafeMutableBufferPointer { w in try reader.next(into: c, wide: w) }
            }
            XCTAssertNotNil(t, "frame \(k)")
            for (name, mine, theirs) in [
                ("centre square", centre, Array(square[(k * 65536)..<((k + 1) * 65536)])),
                ("whole picture", wide, Array(whole[(k * 82944)..<((k + 1) * 82944)]))
            ] {
                let differences = zip(mine, theirs).map { abs(Int($0) - Int($1)) }
                // swscale's area filter works in fixed point and may round a mean the other way.
                XCTAssertLessThanOrEqual(differences.max()!, 1, "frame \(k) \(name)")
                XCTAssertLessThan(Double(differences.reduce(0, +)) / Double(differences.count), 0.1, "frame \(k) \(name)")
                // Not a flat picture: a misplaced box would differ by far more than 1.
                XCTAssertGreaterThan(Set(mine).count, 100, "frame \(k) \(name)")
            }
        }
        XCTAssertNil(try centre.withUnsafeMutableBufferPointer { try reader.next(into: $0) })
    }
}
