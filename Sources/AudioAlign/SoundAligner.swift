/// One input's sound as `align` measures it: one channel at `rate`, sample 0 at `start` seconds
/// on the input's own clock (its presentation time).
public struct AlignSignal: Sendable {
    public var samples: [Float]
    public var rate: Int
    public var start: Double
    /// Root mean square of every sample (0 for digital silence).
    public let rms: Double

    public init(samples: [Float], rate: Int, start: Double) {
        self.samples = samples; self.rate = rate; self.start = start
        rms = Self.rms(samples[...])
    }
    public var duration: Double { Double(samples.count) / Double(rate) }
    public var end: Double { start + duration }

    static func rms(_ x: ArraySlice<Float>) -> Double {
        guard !x.isEmpty else { return 0 }
        var s = 0.0
        for v in x { s += Double(v) * Double(v) }
        return (s / Double(x.count)).squareRoot()
    }
}

/// Where one input lies on the reference's clock: reference time = offset + scale * input time.
public struct SoundAlignment: Equatable, Sendable {
    /// Where the input's time 0 lies on the reference's clock, seconds.
    public var offset: Double
    /// Reference seconds per input second (1 for clocks that agree).
    public var scale: Double
    /// 0 to 1: the share of the measured windows (those with sound in both) that agree with the
    /// fitted line.
    public var confidence: Double
    /// Windows with sound in both inputs, and of those the ones on the line.
    public var windows: Int
    public var agreeing: Int
    /// Scatter of the agreeing windows about the line, ms.
    public var residualMs: Double
    /// Standard errors of the offset (ms) and the drift (ppm), from that scatter.
    public var offsetErrorMs: Double
    public var driftErrorPpm: Double
    /// The stretch both inputs recorded, on the reference's clock, seconds.
    public var overlap: ClosedRange<Double>
    /// Median height of the agreeing windows' peaks over their correlation's rms.
    public var peakZ: Double
    /// How much better the found place matched than the next best place (the coarse search's
    /// best window): 1 would be a tie.
    public var distinctness: Double

    /// How much faster the input's clock runs than the reference's, parts per million: an input
    /// that counts 1.0005 s while the reference counts 1 s is at +500.
    public var driftPpm: Double { (1 / scale - 1) * 1e6 }

    /// The reference's place on the input's clock (the same measurement, turned round).
    public var inverted: SoundAlignment {
        var a = self
        a.offset = -offset / scale
        a.scale = 1 / scale
        a.offsetErrorMs = offsetErrorMs / scale
        a.overlap = inputTime(ofReferenceTime: overlap.lowerBound)...inputTime(ofReferenceTime: overlap.upperBound)
        return a
    }

    public func referenceTime(ofInputTime t: Double) -> Double { offset + scale * t }
    public func inputTime(ofReferenceTime t: Double) -> Double { (t - offset) / scale }
}

/// Why an input was not aligned. `align` never guesses: each of these is an error naming it.
public enum AlignRefusal: Error, Equatable, Sendable {
    /// No sound above `SoundAligner.silence` (-70 dBFS rms).
    case silent
    /// Less sound than `SoundAligner.shortest` to measure.
    case tooShort(seconds: Double)
    /// No stretch of the input's sound was found in the reference: the best window's peak height
    /// over the correlation's rms (`z`, 4 to 5 for unrelated sound) and its lead over the next
    /// best place.
    case noMatch(bestZ: Double, distinctness: Double)
    /// Parts of the input match the reference at different places, equally well (reference
    /// times of the input's time 0 by each).
    case ambiguous(offsets: [Double])
    /// The place found leaves less than `needed` seconds recorded by both: `SoundAligner.shortest`
    /// to measure, and the fine stage's margin searched at each end.
    case noOverlap(seconds: Double, needed: Double)
    /// Too few of the fine windows agree on one line.
    case inconsistent(agreeing: Int, windows: Int)
}

/// Finds where inputs lie on a reference's clock by their sound, in two stages:
///
/// 1. Coarse, at `rate / coarseFactor` (1 kHz): up to six windows of up to 8 s spread over the
///    input, each correlated (`SpectralWeight`) with the whole reference. A window counts when
///    its peak stands out (`coarseZ`) and leads every other place clearly (`coarseDistinctness`);
///    the windows that agree on one line (a start and a drift of at most `maxDriftPpm`) give the
///    first estimate. Parts of the input agreeing on two different places are refused.
///    Measured on the shared GoPro sound at 1 kHz, 8 s windows: matching windows z 10 to 75 and
///    lead 2.5 to 13; unrelated noise z 4.1 to 5.5 and lead under 1.3; tonal music not in the
///    reference z up to 11.6 and lead under 1.3. Hence z 7 and a lead of 1.6.
/// 2. Fine, at `rate` (8 kHz): up to 48 windows of 2 s over the overlap, each stretched by the
///    drift found so far (so its peak is not smeared) and searched +-0.1 s around the line, first
///    from the coarse windows outwards (each agreeing window refining the line for the next), then
///    all again with the refined line. A robust straight line through the peaks (`LineFit`) gives
///    the offset (its value at input time 0) and the drift (its slope), to the sub-sample peaks'
///    precision averaged over the windows.
///
/// The coarse stage keeps a drifting clock from smearing the peak (500 ppm over 8 s is 4 ms, 4
/// coarse samples; over a whole 10-minute clip it would be 300 ms), and costs one FFT of the
/// reference for all windows and inputs.
public struct SoundAligner: Sendable {
    public struct Settings: Sendable {
        /// The fine stage's sample rate (the signals' rate).
        public var rate = 8000
        public var coarseFactor = 8
        public var coarseWindow = 8.0
        public var coarseWindows = 6
        public var fineWindow = 2.0
        public var fineWindows = 48
        /// How far the fine stage searches around the line, seconds.
        public var fineMargin = 0.1
        public var maxDriftPpm = 1000.0
        public var coarseZ = 7.0
        public var coarseDistinctness = 1.6
        /// A window whose peak is this high but ties with another place is a sound heard twice
        /// (not noise or unrelated music, which stay under 12), and the input is refused as
        /// ambiguous rather than as unmatched.
        public var ambiguousZ = 20.0
        /// A fine window's peak counts from this height over its correlation's rms (unrelated
        /// sound: about 4 over the 1,600 lags searched).
        public var fineZ = 7.0
        public init() {}
    }

    /// Sound quieter than this (rms, full scale 1) is silence: -70 dBFS.
    public static let silence = 3.2e-4
    /// The least sound, and the least overlap, to align by: 1 s.
    public static let shortest = 1.0
    /// A window quieter than this share of its input's rms is not measured (a pause).
    static let quietShare = 0.05

    public let reference: AlignSignal
    public let settings: Settings
    public let engine: any CorrelationEngine
    private let decimate: Decimator
    private let coarseSearch: any PreparedReference

    public init(reference: AlignSignal, engine: any CorrelationEngine, settings: Settings = Settings()) {
        precondition(reference.rate == settings.rate, "the reference must be at the settings' rate")
        self.reference = reference; self.settings = settings; self.engine = engine
        decimate = Decimator(factor: settings.coarseFactor)
        let coarse = decimate(reference.samples)
        coarseSearch = engine.prepare(reference: coarse[...], longestProbe: Int(settings.coarseWindow * Double(settings.rate / settings.coarseFactor)))
    }

    /// Where `input` lies on the reference's clock, or why that cannot be said.
    public func align(_ input: AlignSignal) -> Result<SoundAlignment, AlignRefusal> {
        precondition(input.rate == settings.rate, "the input must be at the settings' rate")
        guard input.rms >= Self.silence else { return .failure(.silent) }
        guard input.duration >= Self.shortest else { return .failure(.tooShort(seconds: input.duration)) }
        let forward = coarseLine(input).flatMap { fine(input, from: $0) }
        // The coarse windows sample the input; a reference much shorter than the input can fall
        // between them (or only a window's edge can reach it, and match at a wrong place, which
        // the fine stage then refuses). Then search the reference's windows in the input instead.
        if case .failure(let refusal) = forward, input.duration > reference.duration, reference.rms >= Self.silence {
            switch refusal {
            case .noMatch, .inconsistent, .noOverlap:
                if case .success(let back) = SoundAligner(reference: input, engine: engine, settings: settings).align(reference) {
                    return .success(back.inverted)
                }
            case .silent, .tooShort, .ambiguous: break
            }
        }
        return forward
    }

    // MARK: coarse

    struct CoarseWindow { var inputTime: Double; var referenceTime: Double; var z: Double; var distinctness: Double }
    struct CoarseLine { var intercept: Double; var slope: Double; var centre: Double; var distinctness: Double }

    func coarseLine(_ input: AlignSignal) -> Result<CoarseLine, AlignRefusal> {
        let rc = Double(settings.rate / settings.coarseFactor)
        let signal = decimate(input.samples)
        let length = Int((min(settings.coarseWindow, max(Self.shortest, input.duration / 2)) * rc).rounded(.down))
        guard length > 0, signal.count >= length else { return .failure(.tooShort(seconds: input.duration)) }
        let count = min(settings.coarseWindows, max(2, Int((Double(signal.count) / Double(length)).rounded(.up)) + 1))
        let starts =
            count == 1 || signal.count == length
            ? [0]
            : (0..<count).map { (signal.count - length) * $0 / (count - 1) }
        var found: [CoarseWindow] = []
        var best = (z: 0.0, distinctness: 0.0)
        var tie: [Double]?
        for s in Set(starts).sorted() {
            let window = signal[s..<(s + length)]
            guard AlignSignal.rms(window) >= max(Self.silence, Self.quietShare * input.rms) else { continue }
            let values = coarseSearch.correlate(window)
            // Lags that leave at least half the window on the reference: an input may start
            // before the reference or end after it.
            let lo = length - 1 - length / 2, hi = length - 1 + coarseSearch.count - length / 2
            guard let peak = CorrelationPeak.find(in: values, range: lo..<hi, exclusion: Int(0.05 * rc)) else { continue }
            if peak.z > best.z { best = (peak.z, peak.distinctness) }
            if peak.z >= settings.ambiguousZ && peak.distinctness < settings.coarseDistinctness && tie == nil {
                let t = Double(s) / rc
                tie = [peak.index, Double(peak.rivalIndex)].map { reference.start + ($0 - Double(length - 1)) / rc - t - input.start }.sorted()
            }
            guard peak.z >= settings.coarseZ, peak.distinctness >= settings.coarseDistinctness, !peak.atEdge else { continue }
            let lag = peak.index - Double(length - 1)
            found.append(
                CoarseWindow(
                    inputTime: input.start + Double(s) / rc, referenceTime: reference.start + lag / rc,
                    z: peak.z, distinctness: peak.distinctness))
        }
        guard !found.isEmpty else {
            if let tie { return .failure(.ambiguous(offsets: tie)) }
            return .failure(.noMatch(bestZ: best.z, distinctness: best.distinctness))
        }
        let group = agreeing(found)
        let rest = found.indices.filter { !group.contains($0) }
        if !rest.isEmpty {
            let rival = agreeing(rest.map { found[$0] }).map { rest[$0] }
            let zOf = { (g: [Int]) in g.reduce(0.0) { $0 + found[$1].z } }
            // Two places, each backed by as many windows: refuse unless one is far stronger.
            if rival.count >= group.count && !(group.count == rival.count && zOf(group) >= 1.5 * zOf(rival)) {
                let offsets = [group, rival].map { g in g.map { found[$0].referenceTime - found[$0].inputTime }.reduce(0, +) / Double(g.count) }
                return .failure(.ambiguous(offsets: offsets))
            }
        }
        let x = group.map { found[$0].inputTime }, y = group.map { found[$0].referenceTime }
        var slope = 1.0
        if group.count >= 2, (x.max()! - x.min()!) >= Double(length) / rc, let fit = LineFit.leastSquares(x: x, y: y, points: Array(x.indices)) {
            slope = min(max(fit.slope, 1 - settings.maxDriftPpm * 1e-6), 1 + settings.maxDriftPpm * 1e-6)
        }
        let intercept = zip(x, y).reduce(0.0) { $0 + $1.1 - slope * $1.0 } / Double(x.count)
        let centre = x.reduce(0, +) / Double(x.count)
        let lead = group.map { found[$0].distinctness }.max()!
        return .success(CoarseLine(intercept: intercept, slope: slope, centre: centre, distinctness: lead))
    }

    /// The largest set of windows (indices) that lie on one line, the strongest set on a tie.
    func agreeing(_ windows: [CoarseWindow]) -> [Int] {
        var best: [Int] = [], bestZ = 0.0
        for a in windows {
            let group = windows.indices.filter { j in
                let b = windows[j], dt = b.inputTime - a.inputTime
                return abs((b.referenceTime - a.referenceTime) - dt) <= 0.004 + settings.maxDriftPpm * 1e-6 * abs(dt)
            }
            let z = group.reduce(0.0) { $0 + windows[$1].z }
            if group.count > best.count || (group.count == best.count && z > bestZ) { best = group; bestZ = z }
        }
        return best
    }

    // MARK: fine

    struct Measurement { var inputTime: Double; var referenceTime: Double; var z: Double }
    enum Window { case quiet, outside, measured(Measurement, usable: Bool) }

    func fine(_ input: AlignSignal, from coarse: CoarseLine) -> Result<SoundAlignment, AlignRefusal> {
        let margin = settings.fineMargin
        // The overlap on the input's clock, by the coarse line.
        let lo = max(input.start, (reference.start - coarse.intercept) / coarse.slope)
        let hi = min(input.end, (reference.end - coarse.intercept) / coarse.slope)
        let span = hi - lo - 2 * margin
        // The refusal states the whole of what is needed (the margins too): "shares only 1.15 s
        // ...; needs at least 1 s" read as a contradiction.
        guard span >= Self.shortest else { return .failure(.noOverlap(seconds: max(0, hi - lo), needed: Self.shortest + 2 * margin)) }
        let length = min(settings.fineWindow, max(0.5, span / 2))
        let count = min(settings.fineWindows, max(4, Int(2 * span / length)))
        let first = lo + margin, last = hi - margin - length
        let starts = (0..<count).map { first + (last - first) * Double($0) / Double(max(1, count - 1)) }

        // Pass 1: outwards from the coarse windows, the line refined by each agreeing window.
        var line = (intercept: coarse.intercept, slope: coarse.slope)
        var xs: [Double] = [], ys: [Double] = []
        for t in starts.sorted(by: { abs($0 - coarse.centre) < abs($1 - coarse.centre) }) {
            guard case .measured(let m, let usable) = measure(input, at: t, length: length, line: line, margin: margin), usable else { continue }
            xs.append(m.inputTime); ys.append(m.referenceTime)
            if xs.count >= 3, (xs.max()! - xs.min()!) >= length, let fit = LineFit.robust(x: xs, y: ys, floor: 0.0005) {
                line = (fit.intercept, fit.slope)
            }
        }
        guard xs.count >= 2, let refined = LineFit.robust(x: xs, y: ys, floor: 0.0005) else {
            return .failure(.inconsistent(agreeing: xs.count, windows: count))
        }
        line = (refined.intercept, refined.slope)

        // Pass 2: every window again, stretched by the refined drift.
        var measured: [Measurement] = []
        var withSound = 0
        for t in starts {
            switch measure(input, at: t, length: length, line: line, margin: margin) {
            case .quiet, .outside: continue
            case .measured(let m, let usable):
                withSound += 1
                if usable { measured.append(m) }
            }
        }
        let x = measured.map(\.inputTime), y = measured.map(\.referenceTime)
        guard measured.count >= 3, let fit = LineFit.robust(x: x, y: y, floor: 0.00025), fit.inliers.count >= 3 else {
            return .failure(.inconsistent(agreeing: measured.count, windows: withSound))
        }
        let confidence = Double(fit.inliers.count) / Double(max(withSound, 1))
        guard confidence >= 0.5 else { return .failure(.inconsistent(agreeing: fit.inliers.count, windows: withSound)) }
        let zs = fit.inliers.map { measured[$0].z }.sorted()
        let scale = fit.slope
        let overlapStart = max(reference.start, fit.at(input.start)), overlapEnd = min(reference.end, fit.at(input.end))
        return .success(
            SoundAlignment(
                offset: fit.intercept, scale: scale, confidence: confidence, windows: withSound, agreeing: fit.inliers.count,
                residualMs: fit.rms * 1000, offsetErrorMs: fit.interceptError * 1000,
                driftErrorPpm: fit.slopeError / (scale * scale) * 1e6,
                overlap: overlapStart...max(overlapStart, overlapEnd), peakZ: zs[zs.count / 2], distinctness: coarse.distinctness))
    }

    /// Correlates the input's window starting at input time `t` (`length` s, stretched onto the
    /// reference's sample grid by the line's slope) with the reference +-`margin` around where
    /// the line puts it.
    func measure(_ input: AlignSignal, at t: Double, length: Double, line: (intercept: Double, slope: Double), margin: Double) -> Window {
        let rate = Double(settings.rate)
        let i0 = Int(((t - input.start) * rate).rounded(.down))
        let tb = input.start + Double(i0) / rate
        let n = Int(length * rate), m = Int(margin * rate)
        let ja = Int(((line.intercept + line.slope * tb - reference.start) * rate).rounded(.down)) - m
        // The probe's sample j is the input's sample i0 + j / slope (reference samples are
        // 1 / rate apart; the input's clock counts 1 / slope times as much in that time).
        let step = 1 / line.slope
        guard i0 >= 0, ja >= 0, ja + n + 2 * m <= reference.samples.count,
            Int(Double(i0) + Double(n) * step) + 2 <= input.samples.count
        else { return .outside }
        var probe = [Float](repeating: 0, count: n)
        input.samples.withUnsafeBufferPointer { s in
            for j in 0..<n {
                let p = Double(i0) + Double(j) * step
                let k = Int(p), f = Float(p - Double(k))
                probe[j] = s[k] + f * (s[k + 1] - s[k])
            }
        }
        let segment = reference.samples[ja..<(ja + n + 2 * m)]
        let floor = { (whole: Double) in max(Self.silence, Self.quietShare * whole) }
        guard AlignSignal.rms(probe[...]) >= floor(input.rms), AlignSignal.rms(segment) >= floor(reference.rms) else { return .quiet }
        let values = engine.prepare(reference: segment, longestProbe: n).correlate(probe[...])
        guard let peak = CorrelationPeak.find(in: values, range: (n - 1)..<(n + 2 * m), exclusion: Int(0.002 * rate)) else { return .quiet }
        let lag = peak.index - Double(n - 1)
        let measurement = Measurement(inputTime: tb, referenceTime: reference.start + (Double(ja) + lag) / rate, z: peak.z)
        return .measured(measurement, usable: peak.z >= settings.fineZ && !peak.atEdge)
    }
}
