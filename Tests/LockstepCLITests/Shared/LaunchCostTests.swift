import Foundation
import TestSupport
import XCTest

/// What every launch of `lockstep` pays before it parses its arguments: the dynamic loader's work
/// for each shared library the binary names. libavfilter (only the deinterlacer uses it) is opened
/// when needed (Sources/CAVFilter/shim.h): linked, its 32 dependencies cost a third of a launch.
final class LaunchCostTests: ScratchFolderTestCase {
    func testTheBinaryNamesNoLibavfilterAndStillDeinterlaces() throws {
        // readelf, an outside reader, lists the libraries the binary asks the loader for.
        let needed = String(decoding: try Processes.check("readelf", ["-d", Repository.binary.path]), as: UTF8.self)
            .split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertTrue(needed.contains { $0.contains("libavcodec.so") }, "readelf -d listed no libavcodec: \(needed)")
        XCTAssertFalse(needed.contains { $0.contains("libavfilter") }, "lockstep links libavfilter again: \(needed)")

        // And the deinterlacer still finds it: an interlaced clip made by the ffmpeg CLI, a picture a field.
        let input = scratch.appendingPathComponent("interlaced.mp4").path, output = scratch.appendingPathComponent("fields.mp4").path
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=50", "-t", "0.4", "-vf", "interlace",
                "-c:v", "libx264", "-flags", "+ilme+ildct", "-x264-params", "tff=1", "-pix_fmt", "yuv420p", input
            ])
        let run = try Processes.lockstep(["filter", input, "--filter", "none", "--deinterlace", "field", "-o", output])
        XCTAssertEqual(run.status, 0, run.stderr)
        let frames = String(
            decoding: try Processes.check(
                "ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output]),
            as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(frames, "20", "10 interlaced frames, two fields each")
    }
}
