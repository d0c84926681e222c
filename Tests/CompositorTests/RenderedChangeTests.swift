import XCTest

@testable import Compositor

/// `RenderedChange` reads every 4th pixel as the low byte of a 32-bit word; these hold it to the
/// plain definition (the mean absolute difference of the subsampled luma), sample by sample, on
/// widths that end inside a word, rows that start at odd addresses, and exactly sized planes
/// (a word read past a row's last pixel is out of bounds under ASan on the last row).
final class RenderedChangeTests: XCTestCase {
    /// The definition, one sample at a time.
    private func reference(_ a: Plane, _ b: Plane) -> Double {
        var total = 0, n = 0
        for y in stride(from: 0, to: a.height, by: RenderedChange.step) {
            for x in stride(from: 0, to: a.width, by: RenderedChange.step) {
                total += abs(Int(a[x, y]) - Int(b[x, y])); n += 1
            }
        }
        return Double(total) / Double(n)
    }

    func testTheWordReadsGiveTheSampleBySampleMeanOnEveryWidth() {
        check(widths: Array(1...41), heights: [1, 2, 5, 9], avx2: false)
    }

    /// The C rows (RenderedChange.h, blocks of thirty-two samples: 128 pixels) against the
    /// definition, on widths around the blocks' ends and a 1080p row's, with the Swift tail after them.
    func testTheAVX2RowsGiveTheSampleBySampleMean() throws {
        try XCTSkipUnless(ColorConvertKernel.processorHasAVX2, "this processor has no AVX2 (the Swift loop above is what runs)")
        check(widths: [127, 128, 129, 131, 132, 255, 256, 259, 260, 384, 387, 1920, 1923], heights: [1, 4, 7], avx2: true)
    }

    private func check(widths: [Int], heights: [Int], avx2: Bool) {
        var seed: UInt32 = 7
        func next() -> UInt8 { seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(seed >> 24) }
        for width in widths {
            for height in heights {
                // One byte of lead-in, so every row starts at an odd address; no byte after the plane.
                let count = width * height + 1
                let first = UnsafeMutablePointer<UInt8>.allocate(capacity: count), second = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
                defer { first.deallocate(); second.deallocate() }
                for i in 0..<count { first[i] = next(); second[i] = next() }
                let a = Plane(base: first + 1, stride: width, width: width, height: height)
                let b = Plane(base: second + 1, stride: width, width: width, height: height)
                let image = { (p: Plane) in YUVImage(y: p, u: p, v: p) }
                let change = RenderedChange(width: width, height: height, avx2: avx2)
                XCTAssertNil(change.measure(image(a)))
                XCTAssertEqual(change.measure(image(b)), reference(b, a), "\(width)x\(height)")
                XCTAssertEqual(change.measure(image(a)), reference(a, b), "\(width)x\(height), back")
                XCTAssertEqual(change.measure(image(a)), 0, "\(width)x\(height), the same picture")
            }
        }
    }
}
