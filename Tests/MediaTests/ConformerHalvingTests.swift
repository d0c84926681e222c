import CFFmpeg
import Compositor
import XCTest

@testable import Media

/// A grid's cells (`Halving.box`): a picture of exactly twice its place's size, in the working
/// signal's own format and range, is shrunk by each plane's 2x2 rounded means; everything else
/// keeps swscale's bicubic, and `scalePath` says which path and why.
final class ConformerHalvingTests: MediaTestCase {
    /// Seeded samples in every plane of an SDR (8-bit) picture, tagged as the working signal.
    static func picture(width: Int, height: Int, seed: UInt64) throws -> Frame {
        let f = try Frame(width: width, height: height, signal: .sdr)
        var state = seed
        f.withImage { image in
            for p in [image.y, image.u, image.v] {
                for y in 0..<p.height {
                    for x in 0..<p.width {
                        state = state &* 6364136223846793005 &+ 1442695040888963407
                        p[x, y] = UInt8(truncatingIfNeeded: state >> 56)
                    }
                }
            }
        }
        return f
    }

    /// Each plane's (a + b + c + d + 2) >> 2, sample by sample.
    static func halved(_ p: Plane) -> [UInt8] {
        (0..<(p.height / 2)).flatMap { j in
            (0..<(p.width / 2)).map { i in
                let sum = Int(p[2 * i, 2 * j]) + Int(p[2 * i + 1, 2 * j]) + Int(p[2 * i, 2 * j + 1]) + Int(p[2 * i + 1, 2 * j + 1])
                return UInt8((sum + 2) >> 2)
            }
        }
    }

    static func samples(_ p: Plane) -> [UInt8] { (0..<p.height).flatMap { y in (0..<p.width).map { p[$0, y] } } }

    /// Fits a copy of `source` into a `width` x `height` place with `halving`.
    func fit(_ source: Frame, width: Int, height: Int, halving: Halving, rotation: Int = 0) throws -> (Frame, ScalePath) {
        let decoded = Frame(), out = Frame()
        av_frame_ref(decoded.pointer, source.pointer)
        let conformer = try Conformer(place: Size(width: width, height: height), picture: Rect(x: 0, y: 0, width: width, height: height), fill: .black, rotation: rotation)
        conformer.halving = halving
        try conformer.fit(decoded, into: out)
        return (out, conformer.scalePath)
    }

    func testAnExactHalfIsEachPlanesTwoByTwoMeansUnderTheBox() throws {
        // 202 x 114 cells (chroma 101 x 57: rows that end off the 16-sample SIMD steps).
        for (w, h) in [(202, 114), (2, 2), (34, 6)] {
            let source = try Self.picture(width: 2 * w, height: 2 * h, seed: UInt64(w))
            let (out, path) = try fit(source, width: w, height: h, halving: .box)
            XCTAssertEqual(path, .box, "\(w)x\(h)")
            source.withImage { s in
                out.withImage { o in
                    XCTAssertEqual(Self.samples(o.y), Self.halved(s.y), "\(w)x\(h) luma")
                    XCTAssertEqual(Self.samples(o.u), Self.halved(s.u), "\(w)x\(h) Cb")
                    XCTAssertEqual(Self.samples(o.v), Self.halved(s.v), "\(w)x\(h) Cr")
                }
            }
        }
    }

    func testOtherJobsKeepSwscalesBicubicAndItsBytes() throws {
        let source = try Self.picture(width: 404, height: 228, seed: 7)
        let (bicubic, path) = try fit(source, width: 202, height: 114, halving: .bicubic)
        XCTAssertEqual(path, .swscale(.bicubicAskedFor))
        source.withImage { s in
            bicubic.withImage { XCTAssertNotEqual(Self.samples($0.y), Self.halved(s.y), "bicubic is not the box on seeded noise") }
        }
    }

    func testEverythingButAnExactHalfInTheWorkingFormatKeepsSwscaleAndSaysWhy() throws {
        func path(_ source: Frame, _ w: Int, _ h: Int, rotation: Int = 0) throws -> ScalePath {
            try fit(source, width: w, height: h, halving: .box, rotation: rotation).1
        }
        let even = try Self.picture(width: 404, height: 228, seed: 3)
        XCTAssertEqual(try path(even, 300, 160), .swscale(.notAnExactHalf))
        XCTAssertEqual(try path(even, 404, 228), .swscale(.notAnExactHalf), "the same size")
        XCTAssertEqual(try path(even, 228, 404, rotation: 90), .swscale(.turned))
        XCTAssertEqual(try path(even, 202, 114, rotation: 180), .swscale(.turned))
        // An odd half: its chroma (51 of 102) is no exact half.
        let odd = try Self.picture(width: 202, height: 114, seed: 4)
        XCTAssertEqual(try path(odd, 101, 57), .swscale(.notAnExactHalf))
        let full = try Self.picture(width: 404, height: 228, seed: 5)
        full.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        XCTAssertEqual(try path(full, 202, 114), .swscale(.range))
        let sd = try Self.picture(width: 404, height: 228, seed: 6)
        sd.pointer.pointee.colorspace = AVCOL_SPC_SMPTE170M
        XCTAssertEqual(try path(sd, 202, 114), .swscale(.colours))
        let rgb = Frame()
        rgb.pointer.pointee.format = AV_PIX_FMT_RGB24.rawValue
        rgb.pointer.pointee.width = 404; rgb.pointer.pointee.height = 228
        XCTAssertEqual(av_frame_get_buffer(rgb.pointer, 0), 0)
        XCTAssertEqual(try path(rgb, 202, 114), .swscale(.format))
    }

    func testTenBitPicturesOfTheHDRWorkingSignalAreHalvedToo() throws {
        let (w, h) = (202, 114)
        let source = try Frame(width: 2 * w, height: 2 * h, signal: .hlg)
        var state: UInt64 = 9
        source.withImage16 { image in
            for p in [image.y, image.u, image.v] {
                for y in 0..<p.height {
                    for x in 0..<p.width {
                        state = state &* 6364136223846793005 &+ 1442695040888963407
                        p[x, y] = UInt16(truncatingIfNeeded: state >> 54)  // 0...1023
                    }
                }
            }
        }
        let decoded = Frame(), out = Frame()
        av_frame_ref(decoded.pointer, source.pointer)
        let conformer = try Conformer(
            place: Size(width: w, height: h), picture: Rect(x: 0, y: 0, width: w, height: h), fill: .black, rotation: 0,
            color: ColorOptions(working: .hlg))
        conformer.halving = .box
        try conformer.fit(decoded, into: out)
        XCTAssertEqual(conformer.scalePath, .box)
        func halved(_ p: Plane16) -> [UInt16] {
            (0..<(p.height / 2)).flatMap { j in
                (0..<(p.width / 2)).map { i in
                    UInt16((Int(p[2 * i, 2 * j]) + Int(p[2 * i + 1, 2 * j]) + Int(p[2 * i, 2 * j + 1]) + Int(p[2 * i + 1, 2 * j + 1]) + 2) >> 2)
                }
            }
        }
        func samples(_ p: Plane16) -> [UInt16] { (0..<p.height).flatMap { y in (0..<p.width).map { p[$0, y] } } }
        source.withImage16 { s in
            out.withImage16 { o in
                XCTAssertEqual(samples(o.y), halved(s.y)); XCTAssertEqual(samples(o.u), halved(s.u)); XCTAssertEqual(samples(o.v), halved(s.v))
            }
        }
    }
}
