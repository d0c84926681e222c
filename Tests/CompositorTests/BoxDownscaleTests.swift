import Compositor
import XCTest

/// The box average against its definition, summed sample by sample: the rounded mean of each
/// kx x ky box (halves up), at sizes that leave SIMD tails, at the largest box whose sums fit
/// 16 bits, and from rows given one at a time; the 2x2 box (`halve`) on 8- and 16-bit planes.
final class BoxDownscaleTests: XCTestCase {
    /// A seeded picture, `stride` bytes per row; the bytes between rows are 255 (never read).
    static func picture(width: Int, height: Int, stride: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var out = [UInt8](repeating: 255, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                out[y * stride + x] = UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        return out
    }

    /// Each output sample from its box's samples, one by one.
    static func reference(_ source: [UInt8], stride: Int, width: Int, height: Int, kx: Int, ky: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        for j in 0..<height {
            for i in 0..<width {
                var sum = 0
                for y in (j * ky)..<((j + 1) * ky) { for x in (i * kx)..<((i + 1) * kx) { sum += Int(source[y * stride + x]) } }
                out[j * width + i] = UInt8((sum + kx * ky / 2) / (kx * ky))
            }
        }
        return out
    }

    func scaled(_ source: [UInt8], stride: Int, width: Int, height: Int, kx: Int, ky: Int) -> [UInt8] {
        let box = BoxDownscale(width: width, height: height, kx: kx, ky: ky)
        // Output rows 3 samples wider than the picture: the padding must stay untouched.
        let outStride = width + 3
        var out = [UInt8](repeating: 7, count: outStride * height)
        source.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in box.scale(s.baseAddress!, sourceStride: stride, into: o.baseAddress!, outStride: outStride) }
        }
        for j in 0..<height { XCTAssertEqual(Array(out[(j * outStride + width)..<((j + 1) * outStride)]), [7, 7, 7], "row \(j)'s padding") }
        return (0..<height).flatMap { out[($0 * outStride)..<($0 * outStride + width)] }
    }

    func testEveryBoxIsTheRoundedMeanOfItsSamples() {
        // (output width, height, kx, ky): the 1080p square and whole picture, odd sizes whose
        // rows end off the 16-sample steps, one-sample boxes, tall and wide boxes.
        let cases = [
            (256, 4, 4, 4), (384, 3, 5, 5), (7, 3, 3, 2), (17, 2, 5, 5), (33, 5, 2, 3), (1, 1, 1, 1),
            (40, 2, 1, 1), (5, 2, 16, 16), (3, 1, 1, 200), (2, 2, 257, 1)
        ]
        for (n, (width, height, kx, ky)) in cases.enumerated() {
            let stride = width * kx + 5
            let source = Self.picture(width: width * kx, height: height * ky, stride: stride, seed: UInt64(n + 1))
            XCTAssertEqual(
                scaled(source, stride: stride, width: width, height: height, kx: kx, ky: ky),
                Self.reference(source, stride: stride, width: width, height: height, kx: kx, ky: ky),
                "\(width)x\(height) boxes of \(kx)x\(ky)")
        }
    }

    func testHalvesRoundUpAndFullBoxesOfTheLargestAreaStayWhite() {
        // Two samples 0 and 1: the mean 0.5 rounds to 1; 0 and 0: 0.
        XCTAssertEqual(scaled([0, 1, 0, 0], stride: 4, width: 2, height: 1, kx: 2, ky: 1), [1, 0])
        // 255 * 257 = 65,535: the largest sum 16 bits hold.
        XCTAssertEqual(scaled([UInt8](repeating: 255, count: 257 * 2), stride: 257, width: 1, height: 2, kx: 257, ky: 1), [255, 255])
        XCTAssertEqual(scaled([UInt8](repeating: 255, count: 256 * 32), stride: 32 * 16, width: 2, height: 1, kx: 16, ky: 16), [255, 255])
    }

    func testRowsGivenOneAtATimeMakeTheSamePictureAndExtraRowsAreIgnored() {
        let (width, height, kx, ky) = (24, 3, 4, 3), stride = width * kx
        let source = Self.picture(width: stride, height: height * ky + 2, stride: stride, seed: 42)
        let box = BoxDownscale(width: width, height: height, kx: kx, ky: ky)
        var out = [UInt8](repeating: 0, count: width * height)
        source.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                box.begin(into: o.baseAddress!, outStride: width)
                for y in 0..<(height * ky + 2) { box.add(row: s.baseAddress! + y * stride) }
            }
        }
        XCTAssertEqual(out, Self.reference(source, stride: stride, width: width, height: height, kx: kx, ky: ky))
        // The same box object, reused for another picture, starts afresh.
        let other = Self.picture(width: stride, height: height * ky, stride: stride, seed: 43)
        XCTAssertEqual(
            scaled(other, stride: stride, width: width, height: height, kx: kx, ky: ky),
            Self.reference(other, stride: stride, width: width, height: height, kx: kx, ky: ky))
    }

    func testHalvingIsTheRoundedMeanOfEachTwoByTwoBox() {
        // Widths off the 16-sample SIMD steps (1, 15, 17, 101), on them (16, 48), flat and tall;
        // rows padded past the boxes with 255s, which must not be read.
        for (n, (width, height)) in [(1, 1), (15, 3), (16, 2), (17, 5), (48, 1), (101, 57), (202, 3)].enumerated() {
            let stride = 2 * width + 9
            let source = Self.picture(width: 2 * width, height: 2 * height, stride: stride, seed: UInt64(100 + n))
            let expected = Self.reference(source, stride: stride, width: width, height: height, kx: 2, ky: 2)
            XCTAssertEqual(scaled(source, stride: stride, width: width, height: height, kx: 2, ky: 2), expected, "\(width)x\(height) through scale")
            // Straight into a plane whose rows are 3 samples wider: the padding stays untouched.
            // The Swift lanes, then the AVX2 blocks where the processor has them (32 and 16 a step).
            for avx2 in Set([false, ColorConvertKernel.processorHasAVX2]).sorted(by: { !$0 && $1 }) {
                var out = [UInt8](repeating: 7, count: (width + 3) * height)
                source.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        BoxDownscale.halve(
                            s.baseAddress!, sourceStride: stride, into: Plane(base: o.baseAddress!, stride: width + 3, width: width, height: height), avx2: avx2)
                    }
                }
                let rows = (0..<height).map { j -> ArraySlice<UInt8> in out[(j * (width + 3))..<((j + 1) * (width + 3))] }
                XCTAssertEqual(rows.flatMap { $0.prefix(width) }, expected, "\(width)x\(height), avx2 \(avx2)")
                XCTAssertEqual(rows.flatMap { $0.suffix(3) }, [UInt8](repeating: 7, count: 3 * height), "\(width)x\(height)'s padding, avx2 \(avx2)")
            }
        }
    }

    func testHalvingSixteenBitPlanesKeepsEveryBitOfTheirSums() {
        // Full 16-bit samples (four of them overflow 16 bits), and 10-bit ones, off and on the SIMD steps.
        for (n, (width, height, bits)) in [(17, 3, 16), (101, 5, 10), (32, 2, 16), (3, 1, 10)].enumerated() {
            let stride = 2 * width + 5
            var state = UInt64(200 + n)
            let source = (0..<(stride * 2 * height)).map { i -> UInt16 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return i % stride < 2 * width ? UInt16(truncatingIfNeeded: state >> UInt64(64 - bits)) : 0xFFFF
            }
            let expected = (0..<height).flatMap { j in
                (0..<width).map { i -> UInt16 in
                    let a = 2 * j * stride + 2 * i, b = a + stride
                    return UInt16((Int(source[a]) + Int(source[a + 1]) + Int(source[b]) + Int(source[b + 1]) + 2) >> 2)
                }
            }
            for avx2 in Set([false, ColorConvertKernel.processorHasAVX2]).sorted(by: { !$0 && $1 }) {
                var out = [UInt16](repeating: 0, count: width * height)
                source.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        BoxDownscale.halve(
                            s.baseAddress!, sourceStride: stride, into: Plane16(base: o.baseAddress!, stride: width, width: width, height: height), avx2: avx2)
                    }
                }
                XCTAssertEqual(out, expected, "\(width)x\(height), \(bits)-bit, avx2 \(avx2)")
            }
        }
    }

    func testFactorsAreGivenOnlyWhenWholeAndSmallEnough() {
        XCTAssertTrue(BoxDownscale.factors(from: (1920, 1080), to: (384, 216))! == (5, 5))
        XCTAssertTrue(BoxDownscale.factors(from: (1024, 1024), to: (256, 256))! == (4, 4))
        XCTAssertTrue(BoxDownscale.factors(from: (3840, 2160), to: (384, 216))! == (10, 10))
        XCTAssertNil(BoxDownscale.factors(from: (1280, 720), to: (384, 216)))
        XCTAssertNil(BoxDownscale.factors(from: (640, 360), to: (384, 216)))
        XCTAssertNil(BoxDownscale.factors(from: (17 * 384, 17 * 216), to: (384, 216)), "17 x 17 = 289 samples overflow 16 bits")
        XCTAssertNil(BoxDownscale.factors(from: (100, 100), to: (0, 10)))
    }
}
