import Foundation
import TestSupport
import XCTest

/// A 10-bit movie stabilised on 10-bit planes, end to end: scripts/tools/measure-stabilise's shaky
/// camera (its gyro in a CSV, 60 ms late, axes turned: calibrate runs inside) written as lossless
/// HEVC Main10 tagged BT.2020 HLG, `stabilise --hdr hlg --crf 0 --preset ultrafast`. Outside checks: ffprobe (HEVC,
/// yuv420p10le, HLG, every frame), ffmpeg's raw 10-bit decode (more than 256 luma codes: no 8-bit
/// step on the way; the levels where they were), OpenCV's feature tracks (the shake cut).
final class StabiliseTenBitSlowTests: XCTestCase {
    func testTenBitInputComesOutTenBitAndSteady() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("stabilise-10bit-\(UUID())")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try Processes.run(
            Repository.root.appendingPathComponent("scripts/tools/measure-stabilise").path,
            ["--bin", Repository.binary.path, "--variants", "global", "--seconds", "4", "--size", "480x270", "--no-vidstab", "--ten-bit", "--out", out.path],
            timeout: 900)
        let text = String(decoding: r.stdout, as: UTF8.self) + r.stderr
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("results.json"))) as? [[String: Any]]
        let row = try XCTUnwrap(results?.first, text)
        let input = try XCTUnwrap(row["tenBitIn"] as? [String: Any], text)
        let output = try XCTUnwrap(row["tenBitOut"] as? [String: Any], text)
        XCTAssertEqual(input["pixFmt"] as? String, "yuv420p10le", text)
        XCTAssertEqual(output["codec"] as? String, "hevc", text)
        XCTAssertEqual(output["pixFmt"] as? String, "yuv420p10le", text)
        XCTAssertEqual(output["transfer"] as? String, "arib-std-b67", text)
        XCTAssertEqual(output["primaries"] as? String, "bt2020", text)
        XCTAssertEqual(output["frames"] as? Int, input["frames"] as? Int, "every frame: \(text)")
        XCTAssertGreaterThan(output["distinctLuma"] as? Int ?? 0, 300, "10-bit codes, not 8-bit ones times four: \(text)")
        let meanIn = try XCTUnwrap(input["meanLuma"] as? Double), meanOut = try XCTUnwrap(output["meanLuma"] as? Double)
        XCTAssertEqual(meanOut, meanIn, accuracy: 0.04 * meanIn, "HLG in, HLG out: the levels kept (the crop moves the mean a little): \(text)")
        let shakeIn = try XCTUnwrap((row["in"] as? [String: Any])?["shake"] as? Double)
        let shakeOut = try XCTUnwrap((row["out"] as? [String: Any])?["shake"] as? Double)
        XCTAssertGreaterThan(shakeIn, 1, "the camera shakes: \(text)")
        XCTAssertGreaterThan(shakeIn / shakeOut, 5, "shake cut from \(shakeIn) to \(shakeOut) degrees: \(text)")
    }
}
