import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `--matte` on a foreground that carries its own alpha. `multiply`: the output weight is the
/// alpha times the matte; `replace`: the matte alone (the alpha ignored, as the key colour is).
/// Flat pictures drawn in the YUV domain by the ffmpeg CLI (lossless), so every value is known:
/// background luma 40, foreground luma 200 with alpha 128 on the left half and 255 on the right,
/// matte luma 126 (video range: weight 110/219). In 8-bit fixed point (`MatteMix`, weights of
/// 256): alpha 128 -> round(128 / 255 * 256) = 129, matte 126 -> round(110 / 219 * 256) = 129.
///   multiply, left:  keyed = (40 * 127 + 200 * 129 + 128) >> 8 = 121, then (40 * 127 + 121 * 129 + 128) >> 8 = 81
///   multiply, right: keyed = 200, then (40 * 127 + 200 * 129 + 128) >> 8 = 121
///   replace, both:   121
/// (Before this was handled, multiply keyed the grey foreground by colour only: 121 on the left.)
final class MatteAlphaTests: ScratchTestCase {
    func make(_ name: String, _ graph: String, _ codec: [String]) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        _ = try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", graph] + codec + [path])
        return path
    }

    /// Mean luma of a rectangle in every frame of `url`, decoded to yuv420p by the ffmpeg CLI.
    func lumaMeans(_ url: URL, x: Range<Int>, y: Range<Int>) throws -> [Double] {
        let raw = [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", url.path, "-map", "0:v:0",
                    "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"
                ]))
        let frameSize = 320 * 240 * 3 / 2
        XCTAssertEqual(raw.count % frameSize, 0)
        return stride(from: 0, to: raw.count - frameSize + 1, by: frameSize).map { start in
            var sum = 0
            for yy in y { for xx in x { sum += Int(raw[start + yy * 320 + xx]) } }
            return Double(sum) / Double(x.count * y.count)
        }
    }

    func testMatteMultipliesOrReplacesTheForegroundsOwnAlpha() throws {
        let bg = try make(
            "flat-bg.mp4", "color=c=black:s=320x240:r=30:d=1,format=yuv420p,geq=lum=40:cb=128:cr=128",
            ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"])
        let fg = try make(
            "flat-fg.mkv", "color=c=black:s=320x240:r=30:d=1,format=yuva420p,geq=lum=200:cb=128:cr=128:a='if(lt(X,160),128,255)'",
            ["-c:v", "ffv1", "-pix_fmt", "yuva420p"])
        let m = try make(
            "flat-matte.mp4", "color=c=black:s=320x240:r=30:d=1,format=yuv420p,geq=lum=126:cb=128:cr=128",
            ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"])
        let left = (x: 20..<140, y: 20..<220), right = (x: 180..<300, y: 20..<220)
        var multiply = MatteOptions(path: m)
        multiply.mode = .multiply
        for (blend, inputs) in [(BlendMode.stack, [bg, fg]), (.chromakey, [fg, bg])] {
            let (out, result) = try compose(blend, inputs) { $0.matte = multiply }
            XCTAssertEqual(result.frames, 30)
            let l = try lumaMeans(out, x: left.x, y: left.y), r = try lumaMeans(out, x: right.x, y: right.y)
            XCTAssertEqual(l.count, 30)
            for k in l.indices {
                XCTAssertEqual(l[k], 81, accuracy: 1.5, "\(blend) multiply, frame \(k), alpha 128 x matte")
                XCTAssertEqual(r[k], 121, accuracy: 1.5, "\(blend) multiply, frame \(k), alpha 255 x matte")
            }
            let (replaced, _) = try compose(blend, inputs) { $0.matte = MatteOptions(path: m) }
            let rl = try lumaMeans(replaced, x: left.x, y: left.y), rr = try lumaMeans(replaced, x: right.x, y: right.y)
            for k in rl.indices {
                XCTAssertEqual(rl[k], 121, accuracy: 1.5, "\(blend) replace, frame \(k), the matte alone")
                XCTAssertEqual(rr[k], 121, accuracy: 1.5, "\(blend) replace, frame \(k), the matte alone")
            }
        }
    }
}
