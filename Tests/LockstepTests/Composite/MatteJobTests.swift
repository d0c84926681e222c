import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `--matte` through the whole job, with mattes made by the ffmpeg CLI (another generator than
/// our fixtures, another size, shorter, in colour): the weights read back from the pictures.
final class MatteJobTests: ScratchTestCase {
    /// A 160x120 matte at 30 fps, `seconds` long: the left half `left`, the right half `right`
    /// (ffmpeg colour names).
    func matte(left: String, right: String, seconds: Int) throws -> String {
        let path = scratch.appendingPathComponent("matte-\(left)-\(right)-\(seconds).mp4").path
        if FileManager.default.fileExists(atPath: path) { return path }  // made earlier in this test
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi",
                "-i", "color=c=\(left):s=160x120:r=30:d=\(seconds),drawbox=x=80:y=0:w=80:h=120:color=\(right):t=fill",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "0", path
            ])
        return path
    }

    /// bg.mp4 (untagged SD: BT.601) re-expressed in BT.709 as the output is, by FFmpeg.
    static let bt709 = "colorspace=all=bt709:iall=bt601-6-525:fast=1"

    /// Mean luma (full range) of a rectangle of each frame.
    func means(_ v: LumaVideo, x: Range<Int>, y: Range<Int>) -> [Double] {
        v.frames.map { f in
            var sum = 0
            for yy in y { for xx in x { sum += Int(f[yy * v.width + xx]) } }
            return Double(sum) / Double(x.count * y.count)
        }
    }

    func filter(_ schedule: FilterSchedule, matte: MatteOptions?) throws -> (URL, CompositeResult) {
        let out = scratch.appendingPathComponent("m-\(UUID().uuidString.prefix(6)).mp4")
        var options = CompositeOptions.filter(input: Fixtures.url("bg.mp4").path, output: out.path, schedule: schedule)
        options.matte = matte
        return (out, try CompositeJob(options: options).run())
    }

    /// A white/red matte, half the input's size and 60 frames against the input's 90: the output
    /// has 60 frames; under white the picture is the filtered one; under red (luma 63 of video
    /// range 16-235: weight 0.2126, BT.709, the working signal every input and matte is
    /// converted to) it is 0.2126 of the way from the unfiltered to the filtered picture (the
    /// unfiltered one taken in BT.709 too, by FFmpeg's colorspace filter). Measured on the mean of
    /// each half away from the edge, per frame.
    func testFilterMatteWeightsByItsScaledLumaAndEndsTheOutput() throws {
        let schedule = FilterSchedule(initial: try FilterChainSpec(parsing: "invert"))
        let (out, result) = try filter(schedule, matte: MatteOptions(path: try matte(left: "white", right: "red", seconds: 2)))
        XCTAssertEqual(result.frames, 60)
        XCTAssertEqual(result.endedBy, 1, "the matte ends the output")
        let (filtered, _) = try filter(schedule, matte: nil)
        let o = try LumaVideo.decode(out), f = try LumaVideo.decode(filtered), u = try LumaVideo.decode(Fixtures.url("bg.mp4"), filter: Self.bt709)
        XCTAssertEqual(o.frames.count, 60)
        let left = (x: 20..<140, y: 20..<220), right = (x: 180..<300, y: 20..<220)
        let oL = means(o, x: left.x, y: left.y), fL = means(f, x: left.x, y: left.y)
        let oR = means(o, x: right.x, y: right.y), fR = means(f, x: right.x, y: right.y), uR = means(u, x: right.x, y: right.y)
        // Red's luma as a weight: the matte's red in BT.709 (about 0.2126, drawbox's red
        // re-expressed), as FFmpeg's colorspace filter gives it (full-range gray: 255 is 1).
        let matteLuma = try LumaVideo.decode(URL(fileURLWithPath: try matte(left: "white", right: "red", seconds: 2)), filter: Self.bt709)
        let w = means(matteLuma, x: 100..<140, y: 20..<100)[0] / 255
        for k in 0..<60 {
            XCTAssertEqual(oL[k], fL[k], accuracy: 2, "frame \(k), white half")
            // 2.5: three encodes and FFmpeg's BT.601-to-709 reference (measured up to 2.04; a
            // BT.601 weight, 0.299, would be 8 levels off at this contrast).
            XCTAssertEqual(oR[k], uR[k] + w * (fR[k] - uR[k]), accuracy: 2.5, "frame \(k), red half")
        }
        // The matte's frame is recorded: the last source of every frame, one per tick.
        let scan = try VerifyJob.scan(out.path)
        let src = scan.frames.compactMap(\.provenance).map(\.src)
        XCTAssertEqual(src.count, 60)
        XCTAssertEqual(src.map { $0.count }, Array(repeating: 2, count: 60))
        XCTAssertEqual(src.map { $0[1][0] }, (0..<60).map(Int64.init))
    }

    func testMixFactorScalesTheMatte() throws {
        let schedule = FilterSchedule(initial: try FilterChainSpec(parsing: "invert"))
        var options = MatteOptions(path: try matte(left: "white", right: "black", seconds: 1))
        options.mixFactor = 0.5
        let (out, result) = try filter(schedule, matte: options)
        XCTAssertEqual(result.frames, 30)
        let (filtered, _) = try filter(schedule, matte: nil)
        let o = try LumaVideo.decode(out), f = try LumaVideo.decode(filtered), u = try LumaVideo.decode(Fixtures.url("bg.mp4"), filter: Self.bt709)
        let oL = means(o, x: 20..<140, y: 20..<220), fL = means(f, x: 20..<140, y: 20..<220), uL = means(u, x: 20..<140, y: 20..<220)
        let oR = means(o, x: 180..<300, y: 20..<220), uR = means(u, x: 180..<300, y: 20..<220)
        for k in 0..<30 {
            XCTAssertEqual(oL[k], (uL[k] + fL[k]) / 2, accuracy: 2, "frame \(k), white half at 0.5")
            XCTAssertEqual(oR[k], uR[k], accuracy: 2, "frame \(k), black half")
        }
    }

    /// chromakey fg.mp4 (green with a grey box at x 80-240, y 160-220) over bg.mp4. `replace`:
    /// the matte alone decides (white: the foreground, green screen included; black: the
    /// background). `multiply` with a white matte is the plain key; with black, the background.
    func testCompositeMatteReplacesOrMultipliesTheKey() throws {
        let whiteBlack = try matte(left: "white", right: "black", seconds: 2)
        let (replaced, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.matte = MatteOptions(path: whiteBlack) }
        XCTAssertEqual(r.frames, 60)
        let (keyed, _) = try compose(.chromakey, ["fg.mp4", "bg.mp4"])
        var multiply = MatteOptions(path: whiteBlack)
        multiply.mode = .multiply
        let (multiplied, _) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.matte = multiply }
        // (The inputs are untagged SD, BT.601: their luma taken in BT.709, as the output's.)
        let o = try LumaVideo.decode(replaced), fg = try LumaVideo.decode(Fixtures.url("fg.mp4"), filter: Self.bt709)
        let bg = try LumaVideo.decode(Fixtures.url("bg.mp4"), filter: Self.bt709)
        let k = try LumaVideo.decode(keyed), m = try LumaVideo.decode(multiplied)
        // Left half, above the box: the green screen itself shows (replace ignores the key).
        let screen = (x: 20..<140, y: 20..<140), right = (x: 180..<300, y: 20..<220)
        let oS = means(o, x: screen.x, y: screen.y), fgS = means(fg, x: screen.x, y: screen.y)
        let oR = means(o, x: right.x, y: right.y), bgR = means(bg, x: right.x, y: right.y)
        let mS = means(m, x: screen.x, y: screen.y), kS = means(k, x: screen.x, y: screen.y), mR = means(m, x: right.x, y: right.y)
        for i in 0..<60 {
            XCTAssertEqual(oS[i], fgS[i], accuracy: 2, "frame \(i): replace, white: the foreground")
            XCTAssertEqual(oR[i], bgR[i], accuracy: 2, "frame \(i): replace, black: the background")
            XCTAssertEqual(mS[i], kS[i], accuracy: 2, "frame \(i): multiply, white: the key as it was")
            XCTAssertEqual(mR[i], bgR[i], accuracy: 2, "frame \(i): multiply, black: the background")
        }
        XCTAssertGreaterThan(abs(oS[30] - kS[30]), 20, "replace shows the screen the key removes")
    }

    /// Under --sync time a 15 fps matte serves two 30 fps ticks per frame, as any input would,
    /// and provenance names the matte frame each tick used.
    func testTheMatteFollowsTheSyncPolicy() throws {
        let slow = scratch.appendingPathComponent("matte15.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=white:s=320x240:r=15:d=2",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", slow
            ])
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) {
            $0.sync = .time; $0.matte = MatteOptions(path: slow)
        }
        XCTAssertEqual(r.frames, 60)
        let src = try VerifyJob.scan(out.path).frames.compactMap(\.provenance).map(\.src)
        XCTAssertEqual(src.map { $0.count }, Array(repeating: 3, count: 60))
        XCTAssertEqual(src.map { $0[2][0] }, (0..<60).map { Int64($0 / 2) })
    }

    func testMatteRulesAreSentences() {
        var o = CompositeOptions(inputs: ["a.mp4", "b.mp4"], output: "o.mp4", blend: .mix)
        o.matte = MatteOptions(path: "m.mp4")
        XCTAssertThrowsError(try o.check()) { XCTAssertEqual("\($0)", "--matte is the foreground's alpha: it needs --blend chromakey or stack; got mix.") }
        o.blend = .chromakey
        o.matte?.mixFactor = 1.5
        XCTAssertThrowsError(try o.check()) { XCTAssertEqual("\($0)", "--mix-factor must be between 0 and 1; got 1.5.") }
        var f = CompositeOptions.filter(input: "a.mp4", output: "o.mp4", schedule: FilterSchedule(initial: .none))
        f.matte = MatteOptions(path: "m.mp4")
        XCTAssertThrowsError(try f.check()) { XCTAssertEqual("\($0)", "--matte mixes the filtered picture with the unfiltered one: it needs --filter or --filter-at.") }
    }
}
