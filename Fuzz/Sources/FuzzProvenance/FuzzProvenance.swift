import LibFuzzerDriver
import Compositor
import Verify

// The provenance parser and every check over what it yields: a movie's SEI payloads are bytes
// from a file (verify reads crafted files), so neither may trap. One input is the payloads of
// consecutive frames, one per line (the first usually carries the header), on a 30 fps clock.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(64)
    var frames: [ScannedFrame] = []
    for (k, line) in lines.enumerated() {
        let provenance = Provenance.parse(Array(line))
        frames.append(ScannedFrame(pts: Timestamp(Int64(k) * 512, Rational(1, 15360)), meanLuma: Double(line.count % 200),
                                   lumaDeviation: 10, difference: k == 0 ? nil : Double(line.first ?? 0) / 100, provenance: provenance))
    }
    let report = Checks.run(Scan(path: "fuzz.mp4", frames: frames, videoDuration: Double(frames.count) / 30,
                                 audio: ScannedAudio(start: 0, end: Double(frames.count) / 30, tailLevel: -20, overallLevel: -20)))
    _ = report.violations.count
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzProvenance_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
