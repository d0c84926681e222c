import Foundation
import Media
import Motion

/// `lockstep calibrate CLIP --imu LOG` where LOG holds several traces (a blackbox file's flights,
/// a store's traces) and no `--trace` was given: the clip is decoded once, the traces are ranked
/// by `FlightChoice` (one FFT pass over each), calibrate's own sync (`CalibrateJob.calibrate`,
/// unchanged) runs on the best `tried` of them, and the most confident result is kept. The report
/// says which trace was chosen, from how many, and where in it the clip starts.
public enum CalibrateFlights {
    /// How many of the best-ranked traces get the full sync (the first pass's ranking alone can
    /// be fooled by a flight that merely shakes as hard; the sync's confidence then decides).
    public static let tried = 2

    /// `flights`: the traces with their readings. `request.readings` is ignored; each flight's own are used. Returns the result of the
    /// chosen flight with the choice in the report's first lines, and the chosen id.
    public static func run(
        _ request: CalibrateRequest, flights: [MotionTrace], cancellation: CancellationToken = CancellationToken(), progress: ((Int64, Int64?) -> Void)? = nil
    ) throws -> (result: CalibrationResult, chosen: Int64) {
        let motion = try FrameMotionExtractor.extract(path: request.video, cancellation: cancellation, progress: progress)
        return try calibrate(request, motion: motion, flights: flights)
    }

    /// The part after decoding: pure, given the picture's motion.
    public static func calibrate(_ request: CalibrateRequest, motion whole: FrameMotionSeries, flights: [MotionTrace]) throws
        -> (result: CalibrationResult, chosen: Int64)
    {
        let motion = whole.centredOnBlocks()
        precondition(!flights.isEmpty)
        let ranked = FlightChoice.rank(shifts: motion.shifts, traces: flights.map(\.readings), bias: request.base.gyroBias, fft: FFTWComplexFFT.make)
        var best: (result: CalibrationResult, index: Int)?
        var failures: [String] = []
        for r in ranked.prefix(tried) where r.score > 0 || flights.count == 1 {
            var one = request
            one.readings = flights[r.index].readings
            one.traceOrientation = CalibrateRequest.statedOrientation(flights[r.index].info)
            one.traceAxisMapping = flights[r.index].axisMapping
            do {
                let result = try CalibrateJob.calibrate(one, centred: motion)
                if best == nil || result.sync.confidence > best!.result.sync.confidence { best = (result, r.index) }
            } catch {
                failures.append("trace \(flights[r.index].id): \(error)")
            }
        }
        guard let chosen = best else {
            let why = failures.isEmpty ? "none of them moves like the video" : failures.joined(separator: "; ")
            throw CalibrationError("\(request.video): no trace of the \(flights.count) matches the clip (\(why))")
        }
        let flight = flights[chosen.index]
        var result = chosen.result
        let score = ranked.first { $0.index == chosen.index }!.score
        let next = ranked.first { $0.index != chosen.index }
        var line =
            "trace \(flight.id) (\(flight.info.deviceName)) chosen from \(flights.count) traces by the clip's motion: "
            + String(format: "first-pass match %.2f", score)
        if let n = next { line += String(format: ", next best trace %lld at %.2f", flights[n.index].id, n.score) }
        // video = IMU + offset, so the clip's first frame is at IMU time -offset.
        let imuStartS = -result.sync.clock.offsetMs(atVideo: 0) / 1000
        let intoS = imuStartS - Double(flight.readings[0].t) / 1e9
        let place = String(format: "the clip starts %.3f s into trace %lld (its clock %.3f s)", intoS, flight.id, imuStartS)
        result.report.insert(contentsOf: [line, place], at: 0)
        return (result, flight.id)
    }
}
