import XCTest

@testable import Compositor

/// The kernels' scratch owner: every buffer as asked (size, starting value), apart from the
/// others, alive while the owner is (ASan, which runs CompositorTests, would see a use after
/// free or an overrun; the keyer and filter suites use these buffers on every frame).
final class ScratchMemoryTests: XCTestCase {
    func testEachBufferIsItsOwnZeroedOrFilledMemory() {
        let m = ScratchMemory()
        let a: UnsafeMutablePointer<Float> = m.buffer(count: 1000)
        let b: UnsafeMutablePointer<UInt8> = m.buffer(count: 17, value: 7)
        let c: UnsafeMutablePointer<Bool> = m.buffer(count: 3, value: true)
        let empty: UnsafeMutablePointer<Int32> = m.buffer(count: 0)
        XCTAssertEqual(m.count, 4)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: a, count: 1000)), [Float](repeating: 0, count: 1000))
        XCTAssertEqual(Array(UnsafeBufferPointer(start: b, count: 17)), [UInt8](repeating: 7, count: 17))
        XCTAssertEqual(Array(UnsafeBufferPointer(start: c, count: 3)), [true, true, true])
        // Writing all of one leaves the others as they were.
        a.update(repeating: 1, count: 1000)
        b.update(repeating: 255, count: 17)
        empty.pointee = -1
        XCTAssertEqual(Array(UnsafeBufferPointer(start: c, count: 3)), [true, true, true])
        XCTAssertEqual(a[999], 1)
        XCTAssertEqual(b[16], 255)
    }

    func testKeyersMadeAndDroppedOneAfterAnotherKeyTheSame() {
        // A green screen with a grey square and an edge of in-between colours; the keyer's
        // buffers (screen estimate, matte rows, morphology) live and die with each keyer.
        let fg = YUVBuffer(width: 96, height: 64), bg = YUVBuffer(width: 96, height: 64)
        PlaneKernels.fill(fg.image, YUVColor(y: 145, u: 54, v: 34))
        PlaneKernels.fill(fg.image, YUVColor(y: 110, u: 90, v: 80), in: Rect(x: 30, y: 14, width: 40, height: 36))
        PlaneKernels.fill(fg.image, YUVColor(y: 80, u: 128, v: 128), in: Rect(x: 34, y: 18, width: 32, height: 28))
        PlaneKernels.fill(bg.image, YUVColor(y: 200, u: 160, v: 100))
        var settings = KeyerSettings()
        settings.erode = 1; settings.feather = 2
        var first: [UInt8]?
        for _ in 0..<12 {
            let out = YUVBuffer(width: 96, height: 64)
            Keyer(settings: settings).apply(foreground: fg.image, background: bg.image, into: out.image)
            let luma = (0..<64).flatMap { Array(UnsafeBufferPointer(start: out.image.y.row($0), count: 96)) }
            if let f = first { XCTAssertEqual(luma, f) } else { first = luma }
        }
        // Keyed: the screen shows the background, the square stays.
        XCTAssertEqual(first?[2 * 96 + 2], 200)
        XCTAssertEqual(first?[32 * 96 + 48], 80)
    }
}
