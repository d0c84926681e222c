import CFFmpeg
import Compositor
import Foundation
import XCTest

@testable import Media

/// The conformer fits decoded pictures to their place: zero copy when nothing is to be done,
/// otherwise scale, turn and margins; any sizes, down to 2x2.
final class ConformerTests: MediaTestCase {
    func place(_ w: Int, _ h: Int) -> Rect { Rect(x: 0, y: 0, width: w, height: h) }

    func testADecodedPictureAtItsSizeMovesWithoutACopy() throws {
        // A picture already in the working signal (yuv420p, BT.709, video range, tagged so):
        // nothing to do. (An untagged 320x240 fixture is BT.601 and is converted:
        // ColorConversionTests.)
        let clip = path("bt709.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=0.2", "-vf", "scale=out_color_matrix=bt709:out_range=tv",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", clip
        ])
        let reader = try MovieReader(path: clip, audio: false)
        let decoded = Frame(), out = Frame()
        guard case .video = try reader.next(into: decoded, audioSink: { _ in }) else { return XCTFail("no picture") }
        let size = Size(width: decoded.width, height: decoded.height)
        let conformer = try Conformer(place: size, picture: place(size.width, size.height), fill: .black, rotation: 0)
        let planes = decoded.pointer.pointee.data.0
        try conformer.fit(decoded, into: out)
        XCTAssertEqual(out.pointer.pointee.data.0, planes, "the decoder's buffer itself")
        XCTAssertFalse(decoded.hasBuffers)
    }

    func testAPictureIsScaledIntoItsRectangleAndTheMarginsPainted() throws {
        let green = YUVColor(rgb: RGB(r: 0, g: 255, b: 0))
        let src = try Frame(width: 32, height: 32, color: YUVColor(y: 200, u: 100, v: 150))
        let out = Frame()
        let conformer = try Conformer(
            place: Size(width: 64, height: 32), picture: Rect(x: 16, y: 0, width: 32, height: 32),
            fill: green, rotation: 0)
        try conformer.fit(src, into: out)
        XCTAssertEqual(out.width, 64)
        out.withImage { image in
            XCTAssertEqual(image.y[0, 10], green.y); XCTAssertEqual(image.y[63, 31], green.y)
            XCTAssertEqual(image.u[4, 4], green.u)
            XCTAssertEqual(image.y[16, 0], 200); XCTAssertEqual(image.y[47, 31], 200)
            XCTAssertEqual(image.v[10, 10], 150)
        }
    }

    func testExtremeSizesScaleDownToTheSmallestPicture() throws {
        // A 4000x16 and a 16x4000 picture in tiny places: no "Invalid argument".
        for (w, h, pw, ph) in [(4000, 16, 2, 2), (16, 4000, 2, 8), (16, 4000, 2, 2), (3, 3, 2, 2), (2, 2, 4000, 16), (4000, 16, 2000, 8)] {
            let src = try Frame(width: w, height: h, color: YUVColor(y: 180, u: 90, v: 60))
            let out = Frame()
            let conformer = try Conformer(place: Size(width: pw, height: ph), picture: place(pw, ph), fill: .black, rotation: 0)
            XCTAssertNoThrow(try conformer.fit(src, into: out), "\(w)x\(h) into \(pw)x\(ph)")
            out.withImage { XCTAssertEqual(Int($0.y[0, 0]), 180, accuracy: 2, "\(w)x\(h) into \(pw)x\(ph)") }
        }
    }

    func testATurnedPictureIsTurnedIntoPlace() throws {
        // 4x2 stored, turned 90 degrees clockwise: 2x4 shown. Left half dark, right half light.
        let src = try Frame(width: 4, height: 2, color: YUVColor(y: 30, u: 128, v: 128))
        src.withImage { image in for y in 0..<2 { image.y[2, y] = 220; image.y[3, y] = 220 } }
        let out = Frame()
        let conformer = try Conformer(place: Size(width: 2, height: 4), picture: place(2, 4), fill: .black, rotation: 90)
        try conformer.fit(src, into: out)
        // Turned clockwise, the right half of the stored picture is the bottom of the shown one.
        out.withImage { image in
            XCTAssertEqual(Int(image.y[0, 0]), 30, accuracy: 30); XCTAssertEqual(Int(image.y[1, 3]), 220, accuracy: 30)
        }
    }

    func testGeometryWithNoRoomForAPictureIsRefused() {
        XCTAssertEqual(
            mediaError { _ = try Conformer(place: Size(width: 0, height: 8), picture: place(0, 8), fill: .black, rotation: 0) }?.description,
            "no room for the picture: its place is 0x8 (at least 2x2 is needed)")
        XCTAssertNotNil(mediaError { _ = try Conformer(place: Size(width: 8, height: 8), picture: Rect(x: 1, y: 0, width: 4, height: 4), fill: .black, rotation: 0) })
        XCTAssertNotNil(mediaError { _ = try Conformer(place: Size(width: 8, height: 8), picture: place(8, 8), fill: .black, rotation: 45) })
    }

    func testFillingAPooledFrameAgainAllocatesNoNewFrame() throws {
        let src = try Frame(width: 320, height: 240)
        let decoded = Frame(), out = Frame()
        let conformer = try Conformer(place: Size(width: 160, height: 120), picture: place(160, 120), fill: .black, rotation: 0)
        av_frame_ref(decoded.pointer, src.pointer)
        try conformer.fit(decoded, into: out)
        let planes = out.pointer.pointee.data.0
        for _ in 0..<5 {
            av_frame_ref(decoded.pointer, src.pointer)
            try conformer.fit(decoded, into: out)
            XCTAssertEqual(out.pointer.pointee.data.0, planes, "the pool frame keeps its buffers")
        }
    }

    func testViewsKeepTheirBufferAlive() {
        // A YUVBuffer's view outlives the last reference to the buffer itself.
        var image: YUVImage?
        do {
            let buffer = YUVBuffer(width: 8, height: 8)
            PlaneKernels.fill(buffer.image, YUVColor(y: 77, u: 1, v: 2))
            image = buffer.image
        }
        XCTAssertEqual(image?.y[7, 7], 77)
        XCTAssertEqual(image?.cropped(to: Rect(x: 2, y: 2, width: 2, height: 2)).u[0, 0], 1)
    }
}
