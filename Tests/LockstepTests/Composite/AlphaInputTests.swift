import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Foregrounds that carry alpha, made by the ffmpeg CLI, keyed by their own alpha in `stack` and
/// compared with the ffmpeg CLI's `overlay` of the same two movies.
final class AlphaInputTests: ScratchTestCase {
    /// Every frame's yuv420p bytes, decoded by the ffmpeg CLI.
    func raw(_ path: String, frames: Int) throws -> [UInt8] {
        [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-frames:v", "\(frames)",
                    "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"
                ]))
    }

    /// The ffmpeg CLI's overlay of `fg` (scaled to 320x240, bicubic) on `bg` (straight alpha,
    /// yuv420), as raw yuv420p, re-expressed from BT.601 (the untagged SD inputs') in BT.709 by
    /// FFmpeg's `colorspace` filter (the output's: every input is converted to it before
    /// blending, and a blend commutes with the linear matrix change). Not `scale`'s matrix
    /// options: swscale clips the footroom (bg.mp4's blacks below 16) on the way.
    func overlayReference(bg: String, fg: String, frames: Int) throws -> [UInt8] {
        [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", bg, "-i", fg, "-filter_complex",
                    "[1:v]scale=320:240:flags=bicubic[f];[0:v][f]overlay=shortest=1:format=yuv420,"
                        + "colorspace=all=bt709:iall=bt601-6-525:fast=1,format=yuv420p", "-frames:v", "\(frames)",
                    "-f", "rawvideo", "-"
                ]))
    }

    func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double { PixelDifference.psnr(a, b) }

    /// An ffmpeg filter graph: `picture` (a chain giving a format with alpha) with its alpha plane
    /// drawn by `geq` from `alpha` (an expression of X, Y, W, H) at `size`. The alpha does not
    /// move, so geq draws it once and `loop` repeats it: per frame, geq over every plane was
    /// most of the cost of making these clips (21 s of the 640x480 ProRes one's 2 s).
    static func withAlpha(_ picture: String, size: String, alpha: String) -> String {
        "\(picture)[v];color=c=black:s=\(size):r=30,format=gray,trim=end_frame=1,geq=lum='\(alpha)',"
            + "loop=loop=-1:size=1:start=0,setpts=N/30/TB[a];[v][a]alphamerge=shortest=1"
    }

    /// `geq` draws the alpha: a soft disc (ProRes 4444, yuva444p10le) over testsrc2, at 640x480:
    /// scaled to the 320x240 canvas, alpha and all.
    func proRes4444() throws -> String {
        let path = scratch.appendingPathComponent("fg4444.mov").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-filter_complex",
                Self.withAlpha("testsrc2=s=640x480:r=30:d=1,format=yuva444p", size: "640x480", alpha: "clip(255*(1.6-hypot(X-320,Y-240)/140),0,255)"),
                "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le", path
            ])
        return path
    }

    /// Another generator and codec: QuickTime Animation (argb), hard-edged bands of alpha 0,
    /// 128 and 255 over an orange picture with pure green stripes (which must stay: the key
    /// colour is ignored for an input with alpha).
    func qtrle() throws -> String {
        let path = scratch.appendingPathComponent("fgrle.mov").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "color=c=orange:s=320x240:r=30:d=1,drawbox=x=0:y=40:w=320:h=40:color=0x00FF00:t=fill,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,100),0,if(lt(X,200),128,255))'",
                "-c:v", "qtrle", path
            ])
        return path
    }

    /// A movie the ffmpeg CLI makes from a filter `graph` with `codec` options, in the scratch folder.
    func made(_ name: String, _ graph: String, _ codec: [String]) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        _ = try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-filter_complex", graph] + codec + [path])
        return path
    }

    /// PNG in MOV (rgba): a third generator and the RGB-with-alpha path: SMPTE bars at 480x360
    /// (scaled to the canvas) under a left-to-right alpha ramp, with a fully opaque square.
    func pngInMov() throws -> String {
        try made(
            "fgpng.mov",
            Self.withAlpha("smptebars=s=480x360:r=30:d=1,format=rgba", size: "480x360", alpha: "if(between(X,300,420)*between(Y,60,180),255,255*X/W)"),
            ["-c:v", "png", "-pix_fmt", "rgba"])
    }

    /// FFV1 with alpha (yuva420p) in Matroska: a fourth codec and container, alpha drawn in the
    /// YUV domain: a top-to-bottom ramp with a transparent band.
    func ffv1Alpha() throws -> String {
        try made(
            "fgffv1.mkv", Self.withAlpha("mandelbrot=s=320x240:r=30,trim=duration=1,format=yuva420p", size: "320x240", alpha: "if(between(Y,100,139),0,255*Y/H)"),
            ["-c:v", "ffv1", "-pix_fmt", "yuva420p"])
    }

    /// Each foreground lasts 1 s (30 frames: every frame compared, the alpha drawn per pixel
    /// by `geq` is most of the cost of making them), over bg.mp4's first second.
    func checkStackMatchesOverlay(_ fg: String, bound: Double) throws {
        let (out, result) = try compose(.stack, ["bg.mp4", fg])
        XCTAssertEqual(result.frames, 30)
        let ours = try raw(out.path, frames: 30), reference = try overlayReference(bg: Fixtures.url("bg.mp4").path, fg: fg, frames: 30)
        XCTAssertEqual(ours.count, reference.count)
        let p = psnr(ours, reference)
        XCTAssertGreaterThan(p, bound, "\(fg): PSNR \(p) dB against ffmpeg's overlay")
        print("alpha stack vs overlay, \((fg as NSString).lastPathComponent): PSNR \(String(format: "%.2f", p)) dB")
        // Keyed by colour as well, the green stripes go: the picture moves away from overlay's.
        // (Only the QuickTime Animation foreground has green to lose; the others' second run
        // checked nothing.)
        if fg.hasSuffix("fgrle.mov") {
            let (both, _) = try compose(.stack, ["bg.mp4", fg]) { $0.keyAlphaAndColor = true }
            XCTAssertLessThan(psnr(try raw(both.path, frames: 30), reference), p - 3)
        }
    }

    func testProRes4444ForegroundKeyedByItsAlphaMatchesOverlay() throws {
        try checkStackMatchesOverlay(try proRes4444(), bound: 35)
    }

    func testQuickTimeAnimationForegroundKeyedByItsAlphaMatchesOverlay() throws {
        try checkStackMatchesOverlay(try qtrle(), bound: 35)
    }

    func testPNGInMOVForegroundKeyedByItsAlphaMatchesOverlay() throws {
        try checkStackMatchesOverlay(try pngInMov(), bound: 35)
    }

    func testFFV1WithAlphaForegroundKeyedByItsAlphaMatchesOverlay() throws {
        try checkStackMatchesOverlay(try ffv1Alpha(), bound: 35)
    }
}
