import LibFuzzerDriver
import Motion

// The gcsv and CSV parsers read what users bring (`imu import`, info, plot, snake, calibrate):
// on any bytes they must return samples or a TraceFileError, never trap. What they return is
// then measured and plotted as `imu info` and `imu plot` would, so values that would make those
// trap (NaN, Inf, timestamps whose steps overflow) are caught here too.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    for format in TraceFormat.allCases {
        do {
            let (parser, samples) = try TraceParser.parse(bytes, format: format, source: "fuzz")
            _ = parser.info
            for s in samples {
                precondition(s.gyro.x.isFinite && s.gyro.y.isFinite && s.gyro.z.isFinite, "a non-finite rate came through")
                if let a = s.accel { precondition(a.x.isFinite && a.y.isFinite && a.z.isFinite, "a non-finite acceleration came through") }
                precondition(abs(s.t) <= TraceParser.maxTimestamp, "a timestamp out of range came through")
            }
            let stats = TraceStatistics(timestamps: samples.map(\.t))
            if let first = stats.first, let last = stats.last {
                var plot = SVGPlot(start: first, end: last, gaps: stats.gaps, medianInterval: stats.medianInterval)
                for s in samples { plot.add(s) }
                _ = plot.render(title: "fuzz")
            }
        } catch let e as TraceFileError {
            // Messages stay one bounded line whatever the input.
            let text = e.description
            precondition(!text.utf8.contains(10) && !text.utf8.contains(27), "a newline or ESC reached a message")
            precondition(text.utf8.count < 1200, "an unbounded message")
        } catch {
            preconditionFailure("an error that is not a TraceFileError: \(error)")
        }
    }
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzTraceText_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
