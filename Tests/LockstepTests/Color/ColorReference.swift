import Foundation
import TestSupport
import XCTest

/// Outside references for the colour tests: the ffmpeg CLI's conversions (zscale + tonemap as
/// ../shared/media/phones/README.md gives it, scale's matrix and range conversions, bwdif) and
/// numpy measuring colour patches in CIELAB. Nothing here calls Lockstep's colour code.
enum ColorReference {
    /// The README's conversion of an HLG or PQ picture to SDR BT.709, video range, 8-bit, with
    /// FFmpeg's `tonemap` curve `curve`.
    static func toSDR(curve: String = "hable") -> String {
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=\(curve):desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    }

    /// Raw yuv420p bytes of the first `frames` pictures of `path` after `filter` (ffmpeg
    /// decoding; autorotate as a player turns the picture unless `turned` is false).
    static func raw(_ path: String, filter: String? = nil, frames: Int = 1, turned: Bool = true) throws -> [UInt8] {
        var args = ["-nostdin", "-v", "error"] + (turned ? [] : ["-noautorotate"]) + ["-i", path, "-map", "0:v:0", "-frames:v", "\(frames)"]
        if let filter { args += ["-vf", filter] }
        return [UInt8](try Processes.check("ffmpeg", args + ["-pix_fmt", "yuv420p", "-f", "rawvideo", "-"]))
    }

    /// Writes `bytes` into `folder` as `name` and returns its path.
    static func save(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// PSNR of two equally long byte arrays (all planes), dB.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double { PixelDifference.psnr(a, b) }

    /// The first picture of `path` after `filter` as ffmpeg shows it: rgb24, so values a
    /// display cannot show are clipped as a display clips them.
    static func rgb(_ path: String, filter: String? = nil) throws -> [UInt8] {
        var args = ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-frames:v", "1"]
        if let filter { args += ["-vf", filter] }
        return [UInt8](try Processes.check("ffmpeg", args + ["-pix_fmt", "rgb24", "-f", "rawvideo", "-"]))
    }

    /// PSNR of two rgb24 pictures (`width` x `height`, from `rgb`) over the pixels where the
    /// reference `b` is flat: no channel varies by 6 codes or more in the 7x7 pixels around.
    /// Colour, not edges: at a sharp edge the reference (zscale, per pixel, its own chroma
    /// filters) and Lockstep (one conversion per 2x2 block, docs/colour.md) part by design, and
    /// those pixels outweigh every colour error in a whole-picture PSNR. In RGB because
    /// zscale leaves colours outside BT.709's gamut as Y'CbCr out of the legal range (testsrc2's
    /// red at Y 45, Cr 246) where Lockstep writes the gamut's edge (Y 61, Cr 236): the same
    /// colour once shown. `share`: the part of the picture compared.
    static func flatPSNR(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> (psnr: Double, share: Double) {
        PixelDifference.flatPSNR(a, b, width: width, height: height)
    }

    /// What `measure.py` says of the patches.
    struct Patches: Decodable {
        /// Per chromatic patch (reference C* above 10): |hue difference| in degrees and C* ratio
        /// (ours / reference), CIELAB of BT.709 video range shown on a BT.1886 display.
        var hueErrors: [Double]
        var chromaRatios: [Double]
        var medianHueError: Double
        var medianChromaRatio: Double
        /// Per patch, all of them: CIE76 colour difference.
        var deltaE: [Double]
        /// The centres used (after refining on the reference), for messages.
        var centres: [[Int]]
    }

    /// Measures patches at `centres` (approximate: each is moved, within `search` pixels, to
    /// where the REFERENCE is most uniform, so the patch is located from ffmpeg's picture, not
    /// ours), as the mean over a square of side `side` luma pixels in the first picture of each file.
    static func patches(
        ours: String, reference: String, width: Int, height: Int, centres: [(Int, Int)],
        side: Int = 40, search: Int = 30, in folder: URL
    ) throws -> Patches {
        let script = folder.appendingPathComponent("measure.py")
        try measurePy.write(to: script, atomically: true, encoding: .utf8)
        let list = centres.map { "\($0.0),\($0.1)" }.joined(separator: ";")
        let out = try Processes.check("python3", [script.path, ours, reference, "\(width)", "\(height)", list, "\(side)", "\(search)"])
        return try JSONDecoder().decode(Patches.self, from: out)
    }

    /// The 24 patches of the shared colour checker (hlg10-color-test.mp4, 1920x1080): the 6x4
    /// grid's centres read off ffmpeg's reference conversion, refined on it by `patches`.
    static let checkerCentres: [(Int, Int)] = {
        let xs = [303, 547, 791, 1038, 1282, 1530], ys = [136, 380, 622, 864]
        return ys.flatMap { y in xs.map { ($0, y) } }
    }()

    static let measurePy = """
        import sys, json, math
        import numpy as np
        ours, ref, w, h, centres, side, search = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
        def load(p):
            d = np.fromfile(p, dtype=np.uint8)[:w * h * 3 // 2].astype(np.float64)
            return d[:w * h].reshape(h, w), d[w * h:w * h + w * h // 4].reshape(h // 2, w // 2), d[w * h + w * h // 4:].reshape(h // 2, w // 2)
        A, R = load(ours), load(ref)
        half = side // 2
        def mean(img, x, y):
            return (img[0][y - half:y + half, x - half:x + half].mean(),
                    img[1][(y - half) // 2:(y + half) // 2, (x - half) // 2:(x + half) // 2].mean(),
                    img[2][(y - half) // 2:(y + half) // 2, (x - half) // 2:(x + half) // 2].mean())
        def lab(Y, U, V):
            # BT.709 video range -> R'G'B' -> BT.1886 (2.4) light -> XYZ (D65) -> CIELAB
            y = (Y - 16) / 219; cb = (U - 128) / 224; cr = (V - 128) / 224
            r = y + 1.5748 * cr; b = y + 1.8556 * cb; g = (y - 0.2126 * r - 0.0722 * b) / 0.7152
            rgb = np.clip([r, g, b], 0, 1) ** 2.4
            M = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
            X = M @ rgb; Wn = M @ np.ones(3)
            f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
            fx, fy, fz = f(X[0] / Wn[0]), f(X[1] / Wn[1]), f(X[2] / Wn[2])
            return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)
        out = {"hueErrors": [], "chromaRatios": [], "deltaE": [], "centres": []}
        for c in centres.split(';'):
            x0, y0 = [int(v) for v in c.split(',')]
            best = None
            for dy in range(-search, search + 1, 6 if search else 1):
                for dx in range(-search, search + 1, 6 if search else 1):
                    x, y = x0 + dx, y0 + dy
                    s = R[0][y - half:y + half, x - half:x + half].std()
                    if best is None or s < best[0]: best = (s, x, y)
            x, y = best[1], best[2]
            out["centres"].append([x, y])
            La, Lr = lab(*mean(A, x, y)), lab(*mean(R, x, y))
            out["deltaE"].append(math.dist(La, Lr))
            ca, cr = math.hypot(La[1], La[2]), math.hypot(Lr[1], Lr[2])
            if cr > 10:
                d = math.degrees(math.atan2(La[2], La[1]) - math.atan2(Lr[2], Lr[1]))
                out["hueErrors"].append(abs((d + 180) % 360 - 180))
                out["chromaRatios"].append(ca / cr)
        out["medianHueError"] = float(np.median(out["hueErrors"])) if out["hueErrors"] else 0.0
        out["medianChromaRatio"] = float(np.median(out["chromaRatios"])) if out["chromaRatios"] else 1.0
        print(json.dumps(out))
        """
}
