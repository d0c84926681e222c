import Foundation
import TestSupport
import XCTest

/// `--codec` and `--hdr` end to end through the built binary, checked by ffprobe (an outside
/// reader): each codec's stream, profile, pixel format and colour tags, in the commands that
/// write them; and `concat` of HDR clips, kept HDR with `--hdr hlg`, tone-mapped with a notice
/// without it (it came out SDR silently). Each run is a few frames.
final class OutputCodecTests: ScratchFolderTestCase {
    var short: String { Repository.fixture("short.mp4") }
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// The video stream as ffprobe sees it: codec_name, profile, pix_fmt, the colour tags, and
    /// the frames it decodes.
    func probe(_ file: String) throws -> [String: String] {
        let out = try Processes.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                "stream=codec_name,profile,pix_fmt,color_space,color_transfer,color_primaries,nb_read_frames,codec_tag_string", "-of", "default=nw=1", file
            ])
        var fields: [String: String] = [:]
        for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { fields[kv[0]] = kv[1] }
        }
        return fields
    }

    func run(_ args: [String]) throws -> (stdout: String, stderr: String) {
        let r = try Processes.lockstep(args, timeout: 180)
        XCTAssertEqual(r.status, 0, "lockstep \(args.joined(separator: " ")): \(r.stderr)")
        return (r.stdout, r.stderr)
    }

    func assertStream(_ file: String, _ expected: [String: String], line: UInt = #line) throws {
        let got = try probe(file)
        for (k, v) in expected { XCTAssertEqual(got[k], v, "\(file): \(k)", line: line) }
    }

    let bt709 = ["color_space": "bt709", "color_transfer": "bt709", "color_primaries": "bt709"]

    func testEachCodecInTheCommandsThatWriteIt() throws {
        // ProRes 422 HQ from concat, 10-bit 4:2:2 in MOV, every frame decodable.
        _ = try run(["concat", short, "--codec", "prores", "-o", path("p.mov"), "--quiet"])
        try assertStream(path("p.mov"), ["codec_name": "prores", "profile": "HQ", "pix_fmt": "yuv422p10le", "codec_tag_string": "apch", "nb_read_frames": "12"].merging(bt709) { $1 })
        // DNxHR HQ from reverse (8-bit 4:2:2), scaled up to DNxHR's smallest picture and more.
        _ = try run(["reverse", short, "--codec", "dnxhr", "--size", "640x480", "-o", path("d.mov"), "--quiet"])
        try assertStream(path("d.mov"), ["codec_name": "dnxhd", "profile": "DNXHR HQ", "pix_fmt": "yuv422p", "nb_read_frames": "12", "color_space": "bt709"])
        // HEVC SDR (8-bit Main) from filter, into Matroska; its provenance is read back by verify.
        _ = try run(["filter", short, "--filter", "none", "--codec", "hevc", "--crf", "30", "--preset", "ultrafast", "-o", path("h.mkv"), "--quiet"])
        try assertStream(path("h.mkv"), ["codec_name": "hevc", "profile": "Main", "pix_fmt": "yuv420p", "nb_read_frames": "12"].merging(bt709) { $1 })
        let v = try Processes.lockstep(["verify", path("h.mkv")], timeout: 120)
        XCTAssertEqual(v.status, 0, v.stdout)
        XCTAssertTrue(v.stdout.contains("provenance: index sync of") || v.stdout.contains("provenance: time sync of"), v.stdout)
        // H.264 asked for by name from composite: what it writes without --codec.
        _ = try run(["composite", "--blend", "mix", short, short, "--codec", "h264", "-o", path("a.mp4"), "--quiet"])
        try assertStream(path("a.mp4"), ["codec_name": "h264", "pix_fmt": "yuv420p", "nb_read_frames": "12"].merging(bt709) { $1 })
        // verify of a ProRes output says why there is no provenance, and does not fail for it.
        let p = try Processes.lockstep(["verify", path("p.mov")], timeout: 120)
        XCTAssertTrue(p.stdout.contains(", no provenance (ProRes and DNxHR outputs carry none)"), p.stdout)
    }

    /// Two 10-bit HLG HEVC clips made by the ffmpeg CLI (not by Lockstep), 256x144, 0.4 s each.
    func hlgClips() throws -> [String] {
        try ["h1.mp4", "h2.mp4"].enumerated().map { i, name in
            let p = path(name)
            try Processes.check(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=256x144:r=25:d=0.4", "-f", "lavfi", "-i", "sine=f=\(440 + 220 * i):d=0.4",
                    "-c:v", "libx265", "-x265-params", "log-level=error", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                    "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-c:a", "aac", "-shortest", p
                ])
            return p
        }
    }

    func testConcatOfHDRClipsKeepsHDROrSaysItToneMaps() throws {
        let clips = try hlgClips()
        try assertStream(clips[0], ["pix_fmt": "yuv420p10le", "color_transfer": "arib-std-b67"])
        let kept = try run(["concat"] + clips + ["--hdr", "hlg", "-o", path("hdr.mp4"), "--quiet"])
        try assertStream(
            path("hdr.mp4"),
            [
                "codec_name": "hevc", "profile": "Main 10", "pix_fmt": "yuv420p10le", "codec_tag_string": "hvc1", "nb_read_frames": "20",
                "color_space": "bt2020nc", "color_transfer": "arib-std-b67", "color_primaries": "bt2020"
            ])
        XCTAssertFalse(kept.stderr.contains("tone-mapped"), kept.stderr)
        // Without --hdr: SDR H.264, and a notice naming each clip brought down.
        let mapped = try run(["concat"] + clips + ["-o", path("sdr.mp4"), "--quiet"])
        try assertStream(path("sdr.mp4"), ["codec_name": "h264", "pix_fmt": "yuv420p", "nb_read_frames": "20"].merging(bt709) { $1 })
        XCTAssertTrue(
            mapped.stderr.contains(
                "note: HDR tone-mapped into SDR BT.709 with --tonemap hable: input 1 (\(clips[0]), HLG), input 2 (\(clips[1]), HLG); --hdr hlg or --hdr pq keeps HDR\n"),
            mapped.stderr)
        // HDR into the intra codecs: ProRes 10-bit HLG, DNxHR HQX PQ.
        _ = try run(["concat"] + clips + ["--hdr", "hlg", "--codec", "prores", "-o", path("hdr.mov"), "--quiet"])
        try assertStream(
            path("hdr.mov"),
            [
                "codec_name": "prores", "profile": "HQ", "pix_fmt": "yuv422p10le", "nb_read_frames": "20",
                "color_space": "bt2020nc", "color_transfer": "arib-std-b67", "color_primaries": "bt2020"
            ])
        _ = try run(["concat", clips[0], "--hdr", "pq", "--codec", "dnxhr", "-o", path("pq.mov"), "--quiet"])
        try assertStream(
            path("pq.mov"),
            [
                "codec_name": "dnxhd", "profile": "DNXHR HQX", "pix_fmt": "yuv422p10le", "nb_read_frames": "10",
                "color_space": "bt2020nc", "color_transfer": "smpte2084", "color_primaries": "bt2020"
            ])
    }
}
