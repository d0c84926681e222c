import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Issue 44: the keyer on real edges. The plates are scripts/fixtures/make-real-key-plates': photographs of
/// the alphamatting.com training set with their measured alpha (flowers, troll dolls with green
/// hair, a potted plant, a plush rabbit), re-shot on a synthetic unevenly lit screen with spill,
/// noise and drift. Keyed at Lockstep's defaults (not even --key-color) and by the ffmpeg CLI's
/// chromakey at its best setting of scripts/bench/real-key's grid (chosen knowing the truth), both
/// written lossless and scored against the true composite. The images are not in the repository
/// (no licence beyond research use): without them the test skips, saying so.
final class RealEdgeKeyTests: ScratchTestCase {
    /// ffmpeg's best of scripts/bench/real-key's grid per plate (similarity, blend; no despill won).
    static let ffmpegBest = ["flowers": "0.04:0.1", "trolls": "0.02:0.1", "plant": "0.04:0.05", "rabbit": "0.03:0.1"]

    func plates() throws -> URL {
        let root = Repository.root
        let cached = root.appendingPathComponent(".build-bench/key-real/plates")
        if FileManager.default.fileExists(atPath: cached.appendingPathComponent("size.txt").path) { return cached }
        let made = scratch.appendingPathComponent("plates")
        let source = root.appendingPathComponent(".build-bench/key-real/source").path
        let r = try Shell.run("/usr/bin/env", ["KEY_REAL_SOURCE=\(source)", "python3", Repository.script("make-real-key-plates"), made.path])
        if r.status == 3 {
            throw XCTSkip("the alphamatting.com training images are not in \(source) (see scripts/fixtures/make-real-key-plates): \(r.stderr)")
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        return made
    }

    struct Score { var edge: Double, hue: Double, flicker: Double }

    func testAtTheDefaultsTheKeyerHoldsUpOnRealEdges() throws {
        let dir = try plates()
        let size = try String(contentsOf: dir.appendingPathComponent("size.txt"), encoding: .utf8).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let (w, h, n) = (size[0], size[1], size[2])
        var scores: [String: (lockstep: Score, ffmpeg: Score)] = [:]
        for name in ["flowers", "trolls", "plant", "rabbit"] {
            let fg = dir.appendingPathComponent("\(name)-fg.mp4").path, bg = dir.appendingPathComponent("bg.mp4").path
            let truth = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name)-truth.rgb")))
            let alpha = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name)-alpha.gray")))
            let key = try String(contentsOf: dir.appendingPathComponent("\(name)-screen.txt"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let (out, _) = try compose(.chromakey, [fg, bg]) { $0.encode.crf = 0 }
            let theirs = scratch.appendingPathComponent("\(name)-ffmpeg.mp4").path
            _ = try Shell.check(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-i", fg, "-i", bg, "-filter_complex",
                    "[0:v]chromakey=0x\(key):\(Self.ffmpegBest[name]!)[k];[1:v][k]overlay=shortest=1,format=yuv420p[v]", "-map", "[v]",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "0", "-pix_fmt", "yuv420p", theirs
                ])
            func score(_ path: String) throws -> Score {
                let rgb = [UInt8](
                    try Shell.check(
                        "ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-sws_flags", "bilinear+accurate_rnd+full_chroma_int", "-"]))
                XCTAssertGreaterThanOrEqual(rgb.count, truth.count, path)
                return Self.score(rgb, truth: truth, alpha: alpha, width: w, height: h, frames: n)
            }
            scores[name] = (try score(out.path), try score(theirs))
        }
        func f(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }
        let report = scores.sorted { $0.key < $1.key }.map {
            "\($0.key): \(f($0.value.lockstep.edge)) dB (hue \(f($0.value.lockstep.hue, 1)), flicker \(f($0.value.lockstep.flicker))) vs ffmpeg "
                + "\(f($0.value.ffmpeg.edge)) dB (hue \(f($0.value.ffmpeg.hue, 1)), flicker \(f($0.value.ffmpeg.flicker)))"
        }.joined(separator: "; ")
        // The measured state (docs/compositing.md, the ninth session: clip black 0.02, matte
        // smoothing 0.8 with the foreground colour held): every plate above ffmpeg's best, flowers
        // and the rabbit (no green subjects: --green-subjects auto says no) by 2.04 and 2.44 dB,
        // the trolls and the plant (it says yes) by 0.70 and 1.60 dB; the mean margin +1.70 dB,
        // the issue's +1 met. (The sixth session's state, clip black 0.05, fails the rabbit's, the trolls' and
        // the mean's bounds: +1.96, +0.47, +1.53.)
        XCTAssertGreaterThan(scores["flowers"]!.lockstep.edge, scores["flowers"]!.ffmpeg.edge + 1.85, "flowers: \(report)")
        XCTAssertGreaterThan(scores["rabbit"]!.lockstep.edge, scores["rabbit"]!.ffmpeg.edge + 2.15, "rabbit: \(report)")
        XCTAssertGreaterThan(scores["trolls"]!.lockstep.edge, scores["trolls"]!.ffmpeg.edge + 0.6, "trolls: \(report)")
        XCTAssertGreaterThan(scores["plant"]!.lockstep.edge, scores["plant"]!.ffmpeg.edge + 1.4, "plant: \(report)")
        let mean = scores.values.map { $0.lockstep.edge - $0.ffmpeg.edge }.reduce(0, +) / Double(scores.count)
        XCTAssertGreaterThanOrEqual(mean, 1.6, "the mean edge margin: \(report)")
        // Green stays green: the trolls' green hair and the leaves (measured 1.9 and 3.3 degrees;
        // 33-35 before issue 44, when the despill turned them brown).
        XCTAssertLessThan(scores["trolls"]!.lockstep.hue, 3, report)
        XCTAssertLessThan(scores["plant"]!.lockstep.hue, 4, report)
        // The flicker (issue 44's bar): no higher than ffmpeg's best on any plate (the ninth
        // session's state: flowers 0.006 under it, the trolls 0.035, the plant 0.050, the rabbit
        // 0.008; the eighth session's, 0.014 and 0.079 over on flowers and the trolls, 0.138 on
        // the rabbit, fails it).
        for name in ["flowers", "trolls", "plant", "rabbit"] {
            XCTAssertLessThan(scores[name]!.lockstep.flicker, scores[name]!.ffmpeg.flicker, "\(name): \(report)")
        }
    }

    /// PSNR over the edge band (true alpha strictly between 0 and 255, dilated by 2 pixels) and the
    /// mean hue error over the solid green pixels (true alpha 255, hue 60-180 degrees, saturation
    /// at least 0.25, value at least 40), as scripts/bench/real-key scores them.
    static func score(_ rgb: [UInt8], truth: [UInt8], alpha: [UInt8], width w: Int, height h: Int, frames n: Int) -> Score {
        func hue(_ p: [UInt8], _ i: Int) -> Double {
            let r = Double(p[3 * i]), g = Double(p[3 * i + 1]), b = Double(p[3 * i + 2])
            let a = atan2(3.0.squareRoot() * (g - b), 2 * r - g - b) * 180 / .pi
            return a < 0 ? a + 360 : a
        }
        var se = 0.0, count = 0, hueSum = 0.0, hueCount = 0, flickerSum = 0.0, flickerCount = 0
        var across = [Bool](repeating: false, count: w * h), band = [Bool](repeating: false, count: w * h)
        var lastBand = band
        for f in 0..<n {
            let base = f * w * h
            // The band: partial alpha within 2 pixels across, then within 2 rows.
            for y in 0..<h {
                for x in 0..<w {
                    var any = false
                    for xx in max(x - 2, 0)...min(x + 2, w - 1) where alpha[base + y * w + xx] != 0 && alpha[base + y * w + xx] != 255 { any = true }
                    across[y * w + x] = any
                }
            }
            for y in 0..<h {
                for x in 0..<w {
                    var any = false
                    for yy in max(y - 2, 0)...min(y + 2, h - 1) where across[yy * w + x] { any = true }
                    band[y * w + x] = any
                }
            }
            for j in 0..<(w * h) {
                let i = base + j
                // The flicker: over the band of this frame or the last, the output's change from
                // the last frame less the truth's.
                if f > 0 && (band[j] || lastBand[j]) {
                    for c in 0..<3 {
                        let now = 3 * i + c, then = 3 * (i - w * h) + c
                        let d = (Double(rgb[now]) - Double(rgb[then])) - (Double(truth[now]) - Double(truth[then]))
                        flickerSum += d * d
                    }
                    flickerCount += 3
                }
                if band[j] {
                    for c in 0..<3 { let d = Double(rgb[3 * i + c]) - Double(truth[3 * i + c]); se += d * d }
                    count += 3
                }
                if alpha[i] == 255 {
                    let t = hue(truth, i)
                    let mx = Double(max(truth[3 * i], truth[3 * i + 1], truth[3 * i + 2])), mn = Double(min(truth[3 * i], truth[3 * i + 1], truth[3 * i + 2]))
                    if t >= 60 && t <= 180 && mx >= 40 && mx - mn >= 0.25 * mx {
                        let d = abs(hue(rgb, i) - t)
                        hueSum += min(d, 360 - d); hueCount += 1
                    }
                }
            }
            lastBand = band
        }
        return Score(
            edge: 10 * log10(255 * 255 / max(se / Double(max(count, 1)), 1e-12)), hue: hueCount > 0 ? hueSum / Double(hueCount) : 0,
            flicker: (flickerSum / Double(max(flickerCount, 1))).squareRoot())
    }
}
