import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `lockstep filter` end to end: switching read back from the pictures (barcodes and chroma),
/// provenance, audio, and bad input leaving nothing behind.
final class FilterJobTests: ScratchTestCase {
    func filter(_ input: String, _ schedule: FilterSchedule, audio: Bool = true) throws -> (URL, CompositeResult) {
        let out = scratch.appendingPathComponent("filtered-\(UUID().uuidString.prefix(6)).mp4")
        var options = CompositeOptions.filter(input: input.hasPrefix("/") ? input : Fixtures.url(input).path, output: out.path, schedule: schedule)
        options.audio = audio
        return (out, try CompositeJob(options: options).run())
    }

    /// Mean |U - 128| + |V - 128| of every frame, decoded by the ffmpeg CLI.
    func chromaStrength(_ url: URL, width: Int, height: Int) throws -> [Double] {
        let data = [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                    "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"
                ]))
        let y = width * height, c = (width / 2) * (height / 2), frame = y + 2 * c
        return stride(from: 0, to: data.count - frame + 1, by: frame).map { start in
            var sum = 0
            for i in (start + y)..<(start + frame) { sum += abs(Int(data[i]) - 128) }
            return Double(sum) / Double(2 * c)
        }
    }

    enum Seen: String { case none, invert, mono }

    /// 10 switches on bg.mp4 (90 frames at 30 fps), two of them one frame apart (1.2 s and 1.23 s:
    /// frames 36 and 37; 2 s and 2.02 s: frames 60 and 61). Each frame is classified from its
    /// pixels: a barcode that reads only once the luma is inverted is `invert`; otherwise no
    /// chroma left is `mono` and the picture's own chroma is `none`. The barcode's index must be
    /// the frame's own: nothing dropped or repeated.
    func testTenSwitchesEachFrameShowsTheScheduledChain() throws {
        let text = "0.2=invert;0.5=mono;0.8=none;1=invert;1.2=mono;1.23=invert;1.6=none;2=mono;2.02=invert;2.5=none"
        let schedule = try FilterSchedule.parse(filter: "mono", filterAt: text)
        let (out, result) = try filter("bg.mp4", schedule)
        let source = try LumaVideo.decode(Fixtures.url("bg.mp4"))
        XCTAssertEqual(result.frames, Int64(source.frames.count))
        let luma = try LumaVideo.decode(out)
        XCTAssertEqual(luma.frames.count, source.frames.count, "the same frame count as without filters")
        let chroma = try chromaStrength(out, width: luma.width, height: luma.height)
        XCTAssertEqual(chroma.count, luma.frames.count)

        // The schedule worked out here in milliseconds: frame k (at k/30 s) is at or after T when 1000k >= 30 T_ms.
        let entries: [(ms: Int, chain: Seen)] = [
            (200, .invert), (500, .mono), (800, .none), (1000, .invert), (1200, .mono),
            (1230, .invert), (1600, .none), (2000, .mono), (2020, .invert), (2500, .none)
        ]
        func expected(_ k: Int) -> Seen { entries.last { 1000 * k >= 30 * $0.ms }?.chain ?? .mono }
        var seen: [Seen] = []
        for (k, frame) in luma.frames.enumerated() {
            let region = BarcodeRegion.band(0)
            let plain = Barcode.read(frame, width: luma.width, region: region)
            let inverted = Barcode.read(frame.map { 255 - $0 }, width: luma.width, region: region)
            let kind: Seen
            if let inverted, plain == nil {
                kind = .invert
                XCTAssertEqual(inverted.index, k, "frame \(k)")
            } else if let plain {
                kind = chroma[k] < 1 ? .mono : .none
                XCTAssertEqual(plain.index, k, "frame \(k)")
            } else {
                XCTFail("frame \(k): no barcode, plain or inverted"); continue
            }
            seen.append(kind)
            XCTAssertEqual(kind, expected(k), "frame \(k) (chroma \(chroma[k]))")
        }
        // The switch frames, from the pictures: the schedule's ten plus the start.
        let switches = seen.indices.filter { $0 == 0 || seen[$0] != seen[$0 - 1] }
        XCTAssertEqual(switches, [0, 6, 15, 24, 30, 36, 37, 48, 60, 61, 75])
        // Provenance names the chain in force on every frame.
        let scan = try VerifyJob.scan(out.path)
        let recorded = scan.frames.compactMap(\.provenance).map { $0.filter ?? "?" }
        XCTAssertEqual(recorded.count, 90)
        XCTAssertEqual(recorded, (0..<90).map { expected($0).rawValue })
        // Audio passes through: as long as the video, to the sample.
        XCTAssertEqual(result.audioSamples, 90 * 48_000 / 30)
        let report = try VerifyJob(options: VerifyOptions(movie: out.path)).run()
        XCTAssertTrue(report.provenance)
    }

    /// The same claim on a clip from a second, independent generator: numpy frames at 25 fps,
    /// 320x180, no audio, whose identity is the luma of a flat block (16 + 3k for frame k) beside
    /// a flat colour patch, encoded losslessly by x264. invert shows as 255 - Y in the block, mono
    /// as a neutral patch. Switches at 0.4 s (frame 10), 0.44 s (11, one frame later), 1 s
    /// (frame 25) and 1.5 s (frame 38, the first at or after 1.5).
    func testSwitchesOnAClipFromASecondGenerator() throws {
        let clip = scratch.appendingPathComponent("numpy.mp4")
        let script = try file(
            "frames.py",
            """
            import sys, numpy as np
            w, h, n = 320, 180, 50
            for k in range(n):
                y = np.full((h, w), 60, np.uint8); u = np.full((h // 2, w // 2), 128, np.uint8); v = u.copy()
                y[20:100, 20:100] = 16 + 3 * k
                u[10:50, 70:110] = 90; v[10:50, 70:110] = 180
                sys.stdout.buffer.write(y.tobytes() + u.tobytes() + v.tobytes())
            """)
        let frames = try Processes.check("python3", [script])
        let raw = scratch.appendingPathComponent("frames.yuv")
        try frames.write(to: raw)
        try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x180", "-r", "25",
                "-i", raw.path, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", "-y", clip.path
            ])
        let schedule = try FilterSchedule.parse(filter: nil, filterAt: "0.4=invert;0.44=mono;1=none;1.5=invert")
        let (out, result) = try filter(clip.path, schedule, audio: false)
        XCTAssertEqual(result.frames, 50)
        XCTAssertNil(result.audioSamples)
        let raw2 = [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", out.path, "-fps_mode", "passthrough",
                    "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"
                ]))
        let size = 320 * 180 * 3 / 2
        XCTAssertEqual(raw2.count, 50 * size)
        func expected(_ k: Int) -> Seen { k >= 38 ? .invert : k >= 25 ? .none : k >= 11 ? .mono : k >= 10 ? .invert : .none }
        for k in 0..<min(50, raw2.count / size) {
            let f = k * size
            let block = Int(raw2[f + 60 * 320 + 60]), background = Int(raw2[f + 5 * 320 + 300])
            let patchU = Int(raw2[f + 320 * 180 + 30 * 160 + 90])
            let inverted = background > 128  // 60 -> 195
            let index = ((inverted ? 255 - block : block) - 16 + 1) / 3
            XCTAssertEqual(index, k, "frame \(k): block luma \(block)")
            let kind: Seen = inverted ? .invert : abs(patchU - 128) < 4 ? .mono : .none
            XCTAssertEqual(kind, expected(k), "frame \(k)")
        }
    }

    func testAScheduleBeyondTheOutputNamesTheEntryAndLeavesNothing() throws {
        let schedule = try FilterSchedule.parse(filter: nil, filterAt: "1=invert;2.95=mono;3=none")
        XCTAssertThrowsError(try filter("bg.mp4", schedule, audio: false)) { error in
            XCTAssertEqual("\(error)", "--filter-at entry 3 (\"3=none\"): no output frame is at or after 3 s; the output has 90 frames, the last at 2.967 s.")
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testAMalformedCubeNamesItsLineAndLeavesNothing() throws {
        let cube = try file("bad.cube", "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1\n")
        let existing = try file("out.mp4", "mine")
        var options = CompositeOptions.filter(
            input: Fixtures.url("bg.mp4").path, output: existing,
            schedule: try FilterSchedule.parse(filter: "mono,lut:file=\(cube)", filterAt: nil))
        options.audio = false
        XCTAssertThrowsError(try CompositeJob(options: options).run()) { error in
            XCTAssertEqual("\(error)", "\(cube):4: a table line needs three numbers; got \"0 1\"")
        }
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "mine")
        XCTAssertEqual(try leftovers(), ["bad.cube", "out.mp4"])
    }
}
