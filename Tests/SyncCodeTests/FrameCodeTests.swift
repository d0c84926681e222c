import Compositor
import XCTest

@testable import SyncCode

/// The picture code read back after what pipelines do, simulated on the planes: a quarter of
/// the width (box filter), blur and noise (a low-quality encode), range mix-ups, letterboxing.
final class FrameCodeTests: XCTestCase {
    /// A deterministic noise source (no global random state in tests).
    struct LCG { var s: UInt64; mutating func next() -> Int { s = s &* 6364136223846793005 &+ 1442695040888963407; return Int(s >> 33) } }

    func painted(_ k: Int, _ w: Int = 1920, _ h: Int = 1080) -> YUVBuffer {
        let b = YUVBuffer(width: w, height: h)
        TestPicture.paint(frame: k, frameRate: Rational(30, 1), into: b.image)
        return b
    }

    /// Luma as an array, the picture shrunk by `factor` (box average), blurred 3x3, noised +-amp,
    /// mapped by `range`, placed at (x, y) in a black canvas of cw x ch.
    func degrade(_ b: YUVBuffer, factor: Int, noise amp: Int, range: (Int) -> Int, canvas cw: Int, _ ch: Int, at px: Int, _ py: Int, black: UInt8 = 16) -> (YUVBuffer, Int, Int) {
        let src = b.image.y
        let w = src.width / factor, h = src.height / factor
        var small = [Int](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0
                for dy in 0..<factor { for dx in 0..<factor { s += Int(src[x * factor + dx, y * factor + dy]) } }
                small[y * w + x] = s / (factor * factor)
            }
        }
        var rng = LCG(s: 42)
        let out = YUVBuffer(width: cw, height: ch)
        PlaneKernels.fill(out.image, YUVColor(y: black, u: 128, v: 128))
        for y in 0..<h {
            for x in 0..<w {
                var s = 0, n = 0
                for dy in -1...1 { for dx in -1...1 where (0..<w).contains(x + dx) && (0..<h).contains(y + dy) { s += small[(y + dy) * w + x + dx]; n += 1 } }
                let v = range(s / n) + (amp > 0 ? rng.next() % (2 * amp + 1) - amp : 0)
                out.image.y.row(py + y)[px + x] = UInt8(max(0, min(255, v)))
            }
        }
        return (out, w, h)
    }

    func testEveryCellPatternRoundTripsAtFullSize() {
        for k in [0, 1, 2, 99, 100, 1234, 65535, CodeWord.modulus - 1] {
            let b = painted(k, 640, 360)
            XCTAssertEqual(FrameCode.find(b.image.y, in: Rect(x: 0, y: 0, width: 640, height: 360)), k)
        }
    }

    func testAQuarterWidthNoisyCopyInALetterboxWithFullRangeBlackIsRead() {
        for k in [7, 200, 4097] {
            // 1920x1080 -> 480x270, noise +-12, limited read as full (expanded), in a 480x360 letterbox of full-range black.
            let (out, w, h) = degrade(painted(k), factor: 4, noise: 12, range: { ($0 - 16) * 255 / 219 }, canvas: 480, 360, at: 0, 45, black: 0)
            let rect = FrameCode.pictureRect(out.image.y, in: Rect(x: 0, y: 0, width: 480, height: 360))
            XCTAssertEqual(rect, Rect(x: 0, y: 45, width: w, height: h))
            XCTAssertEqual(FrameCode.find(out.image.y, in: Rect(x: 0, y: 0, width: 480, height: 360)), k)
        }
    }

    func testAPillarboxedCopyWithCompressedRangeIsRead() {
        // Full range squeezed into limited: black 16 -> 30, white 235 -> 218.
        let (out, _, _) = degrade(painted(321), factor: 4, noise: 8, range: { 16 + $0 * 219 / 255 }, canvas: 640, 270, at: 80, 0)
        XCTAssertEqual(FrameCode.find(out.image.y, in: Rect(x: 0, y: 0, width: 640, height: 270)), 321)
        // Pillarbox bars both sides: the picture is found between them.
        XCTAssertEqual(FrameCode.pictureRect(out.image.y, in: Rect(x: 0, y: 0, width: 640, height: 270))?.x, 80)
    }

    func testPicturesWithoutACodeAreNotRead() {
        var rng = LCG(s: 7)
        let b = YUVBuffer(width: 320, height: 180)
        let full = Rect(x: 0, y: 0, width: 320, height: 180)
        PlaneKernels.fill(b.image, FrameCode.background)
        XCTAssertNil(FrameCode.find(b.image.y, in: full), "a flat picture")
        PlaneKernels.fill(b.image, FrameCode.black)
        XCTAssertNil(FrameCode.find(b.image.y, in: full), "a black picture")
        // Random blocky pictures (the kind of footage that could look like cells): none decodes.
        var read = 0
        for _ in 0..<300 {
            for by in 0..<18 {
                for bx in 0..<32 {
                    let v = UInt8(rng.next() % 2 == 0 ? 16 : 235)
                    for y in by * 10..<(by * 10 + 10) { (b.image.y.row(y) + bx * 10).update(repeating: v, count: 10) }
                }
            }
            if FrameCode.find(b.image.y, in: full) != nil { read += 1 }
        }
        XCTAssertEqual(read, 0)
    }

    func testTheCodeWordRejectsEverySingleBitError() {
        let w = CodeWord.encode(123_456 % CodeWord.modulus)
        XCTAssertEqual(CodeWord.decode(w), 123_456 % CodeWord.modulus)
        for b in 0..<CodeWord.bits { XCTAssertNil(CodeWord.decode(w ^ (1 << UInt64(b))), "bit \(b)") }
    }

    func testTimecodeCountsWholeFramesPerSecond() {
        XCTAssertEqual(TestPicture.timecode(frame: 0, frameRate: Rational(30, 1)), "00:00:00:00")
        XCTAssertEqual(TestPicture.timecode(frame: 30 * 3661 + 29, frameRate: Rational(30, 1)), "01:01:01:29")
        XCTAssertEqual(TestPicture.timecode(frame: 30, frameRate: Rational(30000, 1001)), "00:00:01:00")
    }
}
