import Compositor
import Foundation
import Media

extension CompositeJob {
    /// Where each input's audio lies on the output's sample clock under its `InputClock`: the
    /// same mapping the time sync chooses its frames by, so each input's sound stays on its
    /// picture to the sample. Output sample n is output time n / 48000, reference time
    /// start + n / 48000; the input's audio arrives on its corrected clock (its drift taken out
    /// by the reader's resampler), where that reference time is (reference - offset) from its
    /// first frame.
    struct Timing {
        let placement: SyncPlacement
        let sync: SyncMode
        let frameRate: Rational
        private var rate: Rational { Rational(1, Int64(AudioFormat.sampleRate)) }

        /// Output sample 0 on the input's corrected clock, in samples from its first frame.
        func audioShift(input i: Int) -> Int64 {
            guard sync == .time else { return 0 }
            let x = placement.start.subtracting(placement.clocks[i].offset) ?? Rational(0, 1)
            return Rational.rescale(1, from: x, to: rate)
        }

        /// Output samples where the input is heard: from where its used part starts (its trim's
        /// start: earlier audio is silent, also under `--longest` before it starts) to its trim's end.
        func audible(input i: Int) -> Range<Int64> {
            guard sync == .time else { return Int64.min..<Int64.max }
            let clock = placement.clocks[i], start = placement.start
            func sample(_ t: Rational) -> Int64 { Rational.rescale(1, from: t.subtracting(start) ?? Rational(0, 1), to: rate) }
            let from = sample(clock.referenceStart)
            let to = clock.trim.end.map { sample(clock.referenceTime(ofInput: $0)) } ?? Int64.max
            return min(from, to)..<to
        }
    }

    /// The first input's nominal rate (`NominalRate`); a still has no rate of its own, so the
    /// first input that is not one, if any.
    static func defaultFrameRate<C: Collection>(_ readers: C) -> Rational? where C.Element == MovieReader {
        let movie = readers.first { !$0.video.isStill } ?? readers.first
        guard let video = movie?.video else { return nil }
        return video.nominalFrameRate ?? video.frameRate
    }

    /// Where the container says a video stream ends (its start plus its duration), if it says.
    static func streamEnd(_ video: VideoInfo) -> Timestamp? {
        guard let d = video.duration, d > Rational(0, 1) else { return nil }
        let tb = video.timeBase
        let start = video.startTime?.value ?? 0
        let (end, overflow) = start.addingReportingOverflow(Rational.rescale(1, from: d, to: tb))
        return overflow ? nil : Timestamp(end, tb)
    }

    /// The lines said before the first frame: stills, and under index sync (`--keep-frames`) the
    /// inputs whose picture leaves its timeline (`KeepFramesNotice`).
    static func notices(readers: [MovieReader], sync: SyncMode, frameRate: Rational) -> [String] {
        var lines: [String] = []
        for (i, r) in readers.enumerated() where r.video.isStill { lines.append(stillNotice(input: i, path: r.path)) }
        if sync == .index, let line = KeepFramesNotice.line(readers, frameRate: frameRate) { lines.append(line) }
        return lines
    }

    /// An odd `--border` is drawn one pixel wider (`Decor`), and said so: 4:2:0 pictures store
    /// their colour once per 2x2 pixels, and a border's edge on an odd pixel would leave a
    /// colour sample half border, half picture (a tinted fringe along every edge).
    static func borderNotice(_ grid: GridSpec, blend: BlendMode) -> String? {
        guard blend.placesInputs, grid.border % 2 == 1 else { return nil }
        return "--border \(grid.border) is drawn \(Decor.drawnBorder(grid.border)) pixels wide: a border's width is even, as 4:2:0 pictures store their colour once per 2x2 pixels"
    }

    static func stillNotice(input i: Int, path: String) -> String {
        "input \(i + 1) (\(path)) is a still picture: it is shown for the whole output"
    }

    /// "29.97", "30", "23.976", "59.94".
    static func rateText(_ r: Rational) -> String {
        if r.den == 1 { return "\(r.num)" }
        var s = String(format: "%.3f", r.seconds)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// "0.5x", "1.2x", "1.001x": how fast an input plays when each of its frames lasts one
    /// output frame.
    static func speedText(_ output: Rational, over input: Rational) -> String {
        String(format: "%.4gx", output.seconds / input.seconds)
    }
}
