import Compositor
import Foundation
import XCTest

@testable import Lockstep

/// Issue 41 (3): light clothing keyed see-through at the defaults. The plate is
/// scripts/fixtures/make-shirt-plate's (not the keyer's tuning plates, scripts/fixtures/make-key-plates): a man in
/// a white shirt on an unevenly lit screen, with green bounce light on him and camera noise,
/// whose alpha is known. Keyed at the defaults (not even --key-color), the matte written lossless.
final class LightClothingKeyTests: ScratchTestCase {
    func testAWhiteShirtLitByTheScreenIsOpaqueAtTheDefaults() throws {
        let plate = scratch.appendingPathComponent("plate")
        try Shell.check("python3", [EmbeddedTelemetryTests.script("make-shirt-plate"), plate.path])
        let (out, result) = try compose(.chromakey, [plate.appendingPathComponent("shirt-fg.mp4").path, "bg.mp4"]) {
            $0.keying.view = .matte
            $0.encode.crf = 0
        }
        XCTAssertEqual(result.frames, 4)
        let matte = try LumaVideo.decode(out)
        let solid = [UInt8](try Data(contentsOf: plate.appendingPathComponent("shirt-solid.gray")))
        let alpha = [UInt8](try Data(contentsOf: plate.appendingPathComponent("shirt-alpha.gray")))
        XCTAssertEqual(solid.count, matte.width * matte.height)
        // The screen, 8 pixels or more from the subject: keyed away (the test cannot pass by
        // keying nothing).
        let w = matte.width, h = matte.height
        func farFromSubject(_ i: Int) -> Bool {
            let x = i % w, y = i / w
            for dy in stride(from: -8, through: 8, by: 4) {
                for dx in stride(from: -8, through: 8, by: 4) {
                    let xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1)
                    if alpha[yy * w + xx] != 0 { return false }
                }
            }
            return true
        }
        let shirt = solid.indices.filter { solid[$0] == 255 }, screen = alpha.indices.filter(farFromSubject)
        XCTAssertGreaterThan(shirt.count, 10000)
        for (k, frame) in matte.frames.enumerated() {
            let seen = shirt.map { 1 - Double(frame[$0]) / 255 }
            let through = seen.reduce(0, +) / Double(seen.count)
            let worst = seen.sorted()[seen.count * 99 / 100]
            // Background through the shirt: under 1% on average, under 5% at the 99th percentile.
            XCTAssertLessThan(through, 0.01, "frame \(k): \(String(format: "%.1f", through * 100))% of the background shows through the shirt")
            XCTAssertLessThan(worst, 0.05, "frame \(k): the 99th percentile pixel shows \(String(format: "%.1f", worst * 100))%")
            let screenAlpha = screen.map { Double(frame[$0]) / 255 }.reduce(0, +) / Double(screen.count)
            XCTAssertLessThan(screenAlpha, 0.005, "frame \(k): the screen is not keyed away")
        }
    }
}
