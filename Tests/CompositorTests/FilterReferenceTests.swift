import Compositor
import Foundation
import TestSupport
import XCTest

/// Each preset against a reference computed elsewhere: the ffmpeg CLI's matching filter where
/// one exists (colorchannelmixer, hue, negate, gblur, lut3d), otherwise numpy on full-resolution
/// RGB (`Reference.py` below, written from the definitions, not from our code). Two test
/// pictures from two generators: ffmpeg's testsrc2 and a numpy picture of smooth gradients and
/// noise. The figure compared is the mean absolute difference over all three planes (luma only
/// for blur, whose chroma sigma follows the subsampling while gblur's does not), in 8-bit steps.
/// Pictures are BT.709 video range, the working signal the filters run on; the references
/// convert to and from RGB with BT.709 (`scale=in_color_matrix=bt709:out_color_matrix=bt709`).
final class FilterReferenceTests: ScratchFolderTestCase {
    let w = 320, h = 240

    /// The two test pictures, made once for the class: every check reads the same bytes (testsrc2's
    /// first frame and a seeded numpy picture), so making them again per check (an ffmpeg and a
    /// numpy run each time, 18 checks) only cost time.
    nonisolated(unsafe) static var made: Result<[(String, URL)], Error>?

    override class func tearDown() {
        if case .success(let pictures)? = made, let first = pictures.first { try? FileManager.default.removeItem(at: first.1.deletingLastPathComponent()) }
        made = nil
        super.tearDown()
    }

    func pictures() throws -> [(String, URL)] {
        if let made = Self.made { return try made.get() }
        let made = Result { try makePictures(in: try Scratch.makeFolder("lockstep-filter-reference-pictures")) }
        Self.made = made
        return try made.get()
    }

    /// Raw yuv420p bytes of the two test pictures, into `folder`.
    func makePictures(in folder: URL) throws -> [(String, URL)] {
        let a = folder.appendingPathComponent("testsrc2.yuv")
        try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(w)x\(h):r=1", "-frames:v", "1",
                "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-y", a.path
            ])
        let b = folder.appendingPathComponent("numpy.yuv")
        let script = folder.appendingPathComponent("make.py").path
        let text = """
            import numpy as np, sys
            w, h = \(w), \(h)
            rng = np.random.default_rng(7)
            yy, xx = np.mgrid[0:h, 0:w]
            r = 0.5 + 0.45 * np.sin(xx / 23.0) * np.cos(yy / 31.0)
            g = np.clip(xx / w + 0.1 * rng.standard_normal((h, w)), 0, 1)
            b = np.clip(yy / h * 0.8 + 0.2 * (((xx // 40) + (yy // 40)) % 2), 0, 1)
            Y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            Cb = (b - Y) / 1.8556; Cr = (r - Y) / 1.5748
            def down(p): return p.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
            out = np.concatenate([(16 + 219 * Y).ravel(), (128 + 224 * down(Cb)).ravel(), (128 + 224 * down(Cr)).ravel()])
            np.clip(np.rint(out), 0, 255).astype(np.uint8).tofile(sys.argv[1])
            """
        try text.write(toFile: script, atomically: true, encoding: .utf8)
        try Processes.check("python3", [script, b.path])
        return [("testsrc2", a), ("numpy", b)]
    }

    func load(_ url: URL) throws -> YUVBuffer {
        let bytes = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(bytes.count, w * h * 3 / 2)
        let buffer = YUVBuffer(width: w, height: h), img = buffer.image
        bytes.withUnsafeBufferPointer { img.y.base.update(from: $0.baseAddress!, count: bytes.count) }  // one block: y, u, v
        return buffer
    }

    func ours(_ chain: String, _ input: URL, lut: CubeLUT? = nil) throws -> [UInt8] {
        let r = try FilterFactory.chain(FilterChainSpec(parsing: chain), loadLUT: { _ in lut! })
        r.prepare(format: FilterFormat(width: w, height: h), retainedBufferHint: 1)
        let buffer = try load(input)
        let out = r.render(buffer.image)
        var bytes: [UInt8] = []
        for p in [out.y, out.u, out.v] { for row in 0..<p.height { bytes += UnsafeBufferPointer(start: p.row(row), count: p.width) } }
        return bytes
    }

    /// `rgb`: the filter works on RGB: converted to it and back with BT.709's matrix.
    func ffmpeg(_ vf: String, _ input: URL, rgb: Bool = false) throws -> [UInt8] {
        let chain =
            rgb
            ? "scale=in_color_matrix=bt709:in_range=tv,format=gbrp,\(vf),scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"
            : "\(vf),format=yuv420p"
        return [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(w)x\(h)",
                    "-i", input.path, "-vf", chain, "-f", "rawvideo", "-"
                ]))
    }

    /// numpy's reference for `input`: one python run answers for both pictures (the second call
    /// for the same op reads the answer the first wrote).
    func numpy(_ op: String, _ args: [Double], _ input: URL) throws -> [UInt8] {
        let inputs = try pictures().map(\.1)
        let tag = "\(op)-\(args.map { String($0) }.joined(separator: "-"))"
        func out(_ i: Int) -> URL { scratch.appendingPathComponent("ref-\(tag)-\(i).yuv") }
        let i = try XCTUnwrap(inputs.firstIndex(of: input), "\(input.path) is not one of the test pictures")
        if !FileManager.default.fileExists(atPath: out(i).path) {
            let script = try file("reference.py", Self.referencePy)
            let pairs = inputs.indices.flatMap { [inputs[$0].path, out($0).path] }
            try Processes.check("python3", [script, op, String(w), String(h), String(inputs.count)] + pairs + args.map { String($0) })
        }
        return [UInt8](try Data(contentsOf: out(i)))
    }

    func mad(_ a: [UInt8], _ b: [UInt8], lumaOnly: Bool = false) -> Double {
        let n = lumaOnly ? w * h : a.count
        XCTAssertEqual(a.count, b.count)
        return Double(PixelDifference.absoluteSum(a, b, count: n)) / Double(n)
    }

    /// Runs `chain` on both pictures against `reference`; the MAD must be within `tolerance`.
    func check(
        _ chain: String, tolerance: Double, lumaOnly: Bool = false, lut: CubeLUT? = nil,
        _ reference: (URL) throws -> [UInt8]
    ) throws {
        for (name, url) in try pictures() {
            let d = mad(try ours(chain, url, lut: lut), try reference(url), lumaOnly: lumaOnly)
            print("filter reference: \(chain) on \(name): MAD \(String(format: "%.3f", d)) (tolerance \(tolerance))")
            XCTAssertLessThanOrEqual(d, tolerance, "\(chain) on \(name)")
        }
    }

    func testRosyAgainstColorChannelMixer() throws { try check("rosy", tolerance: 1.5) { try ffmpeg("colorchannelmixer=gg=0", $0, rgb: true) } }
    func testMonoAgainstHueS0() throws { try check("mono", tolerance: 0.1) { try ffmpeg("hue=s=0", $0) } }
    func testInvertAgainstNegate() throws { try check("invert", tolerance: 0.1) { try ffmpeg("negate", $0) } }
    func testHueAgainstHueH() throws { try check("hue:degrees=60", tolerance: 0.1) { try ffmpeg("hue=h=60", $0) } }
    func testSepiaAgainstColorChannelMixer() throws {
        try check("sepia", tolerance: 1.5) { try ffmpeg("colorchannelmixer=.3588:.7044:.1368:0:.2990:.5870:.1140:0:.2392:.4696:.0912", $0, rgb: true) }
    }
    func testBlurAgainstGblur() throws {
        try check("blur:radius=2", tolerance: 1.0, lumaOnly: true) { try ffmpeg("gblur=sigma=2:steps=6", $0) }
    }

    func testLUTAgainstLut3d() throws {
        // A non-linear 17-point table: r' = r^2, g' = (g + b) / 2, b' = 1 - r.
        let n = 17
        var lines = ["TITLE \"test\"", "LUT_3D_SIZE \(n)"], table: [SIMD3<Float>] = []
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let (rf, gf, bf) = (Double(r) / 16, Double(g) / 16, Double(b) / 16)
                    let v = (rf * rf, (gf + bf) / 2, 1 - rf)
                    lines.append(String(format: "%.6f %.6f %.6f", v.0, v.1, v.2))
                    table.append(SIMD3(Float(v.0), Float(v.1), Float(v.2)))
                }
            }
        }
        let path = try file("t.cube", lines.joined(separator: "\n") + "\n")
        let lut = try CubeLUT(parsing: String(contentsOfFile: path, encoding: .utf8), name: path)
        XCTAssertEqual(lut.table.count, table.count)
        XCTAssertTrue(zip(lut.table, table).allSatisfy { a, b in abs(a.x - b.x) + abs(a.y - b.y) + abs(a.z - b.z) < 3e-6 }, "the file's table")
        for interp in ["trilinear", "tetrahedral"] {
            try check("lut:file=t.cube:interp=\(interp)", tolerance: 1.5, lut: lut) { try ffmpeg("lut3d=file=\(path):interp=\(interp)", $0, rgb: true) }
        }
    }

    func testPointPresetsAgainstNumpy() throws {
        try check("brightness:amount=0.15", tolerance: 0.1) { try numpy("brightness", [0.15], $0) }
        try check("contrast:amount=1.4", tolerance: 0.1) { try numpy("contrast", [1.4], $0) }
        try check("saturation:amount=1.8", tolerance: 0.1) { try numpy("saturation", [1.8], $0) }
        try check("exposure:ev=0.7", tolerance: 0.1) { try numpy("exposure", [0.7], $0) }
        try check("gamma:gamma=2.2", tolerance: 0.1) { try numpy("gamma", [2.2], $0) }
        try check("posterize:levels=4", tolerance: 0.1) { try numpy("posterize", [4], $0) }
    }

    func testSpatialPresetsAgainstNumpy() throws {
        try check("vignette:start=0.3:end=0.9", tolerance: 0.1) { try numpy("vignette", [0.3, 0.9], $0) }
        try check("pixellate:size=8", tolerance: 0.1) { try numpy("pixellate", [8], $0) }
        try check("edges:strength=1.5", tolerance: 0.1) { try numpy("edges", [1.5], $0) }
        try check("sharpen:amount=1.2:radius=1.5", tolerance: 0.1) { try numpy("sharpen", [1.2, 1.5], $0) }
    }

    /// The numpy reference: full-resolution RGB (chroma repeated 2x2), BT.709 video range.
    static let referencePy = """
        import sys, numpy as np
        # op w h n src1 dst1 ... srcn dstn args: every picture in one run (numpy's import is most of a run).
        op, w, h, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        pairs = [(sys.argv[5 + 2 * i], sys.argv[6 + 2 * i]) for i in range(n)]
        a = [float(x) for x in sys.argv[5 + 2 * n:]]
        def run(src, dst):
            raw = np.fromfile(src, np.uint8).astype(np.float64)
            cw, ch = w // 2, h // 2
            Y = raw[:w * h].reshape(h, w); U = raw[w * h:w * h + cw * ch].reshape(ch, cw); V = raw[w * h + cw * ch:].reshape(ch, cw)
            up = lambda p: np.repeat(np.repeat(p, 2, 0), 2, 1)
            down = lambda p: p.reshape(ch, 2, cw, 2).mean(axis=(1, 3))
            def to_rgb():
                yn = (Y - 16) / 219; pb = (up(U) - 128) / 224; pr = (up(V) - 128) / 224
                return np.stack([yn + 1.5748 * pr, yn - 0.187324 * pb - 0.468124 * pr, yn + 1.8556 * pb])
            def from_rgb(c):
                c = np.clip(c, 0, 1); yn = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
                return 16 + 219 * yn, 128 + 224 * down((c[2] - yn) / 1.8556), 128 + 224 * down((c[0] - yn) / 1.5748)
            def gauss(p, s):
                r = max(1, int(np.ceil(3 * s))); k = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * s * s)); k /= k.sum()
                q = np.pad(p, r, mode='edge')
                q = np.apply_along_axis(lambda v: np.convolve(v, k, 'valid'), 1, q)
                return np.apply_along_axis(lambda v: np.convolve(v, k, 'valid'), 0, q)
            if op in ('brightness', 'contrast', 'saturation', 'exposure', 'gamma', 'posterize'):
                c = to_rgb()
                if op == 'brightness': c = c + a[0]
                if op == 'contrast': c = (c - 0.5) * a[0] + 0.5
                if op == 'saturation': l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; c = l + (c - l) * a[0]
                if op == 'exposure': c = c * 2 ** a[0]
                if op == 'gamma': c = np.clip(c, 0, None) ** a[0]
                if op == 'posterize': c = np.floor(np.clip(c, 0, 1) * a[0] + 0.5) / a[0]
                Y, U, V = from_rgb(c)
            elif op == 'vignette':
                def weight(x, y):
                    d = np.hypot(x - w / 2, y - h / 2) / (np.hypot(w, h) / 2)
                    t = np.clip((d - a[0]) / (a[1] - a[0]), 0, 1)
                    return 1 - t * t * (3 - 2 * t)
                yy, xx = np.mgrid[0:h, 0:w] + 0.5
                cy, cx = np.mgrid[0:ch, 0:cw] * 2 + 1.0
                Y = 16 + (Y - 16) * weight(xx, yy); U = 128 + (U - 128) * weight(cx, cy); V = 128 + (V - 128) * weight(cx, cy)
            elif op == 'pixellate':
                def blocks(p, n):
                    out = p.copy()
                    for y in range(0, p.shape[0], n):
                        for x in range(0, p.shape[1], n):
                            out[y:y + n, x:x + n] = np.floor(p[y:y + n, x:x + n].mean() + 0.5)
                    return out
                n = int(a[0]); Y = blocks(Y, n); U = blocks(U, n // 2); V = blocks(V, n // 2)
            elif op == 'edges':
                q = np.pad(Y, 1, mode='edge')
                gx = (q[:-2, 2:] + 2 * q[1:-1, 2:] + q[2:, 2:]) - (q[:-2, :-2] + 2 * q[1:-1, :-2] + q[2:, :-2])
                gy = (q[2:, :-2] + 2 * q[2:, 1:-1] + q[2:, 2:]) - (q[:-2, :-2] + 2 * q[:-2, 1:-1] + q[:-2, 2:])
                Y = np.clip(16 + a[0] * np.hypot(gx, gy) / 4, 16, 235); U = U * 0 + 128; V = V * 0 + 128
            elif op == 'sharpen':
                Y = Y + a[0] * (Y - gauss(Y, a[1]))
            out = np.concatenate([Y.ravel(), U.ravel(), V.ravel()])
            np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8).tofile(dst)
        for src, dst in pairs:
            run(src, dst)
        """
}
