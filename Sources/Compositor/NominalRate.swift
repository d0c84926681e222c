/// The rate a clip was recorded at, as a person names it (29.97, 60), from what its frames and
/// its stream say. Phones write variable-rate video: an iPhone's 29.97 fps clip in a 1/600 time
/// base steps 20, 20, ..., 21; an Android 60 fps clip steps 16.1-17.2 ms; frames dropped in low
/// light lower the average; an edit list hides frames the container still counts (FFmpeg's
/// average rate of the shared iPhone clip is 51600/1841, 28.03 fps). The default output rate is
/// this nominal rate, never the average.
public enum NominalRate {
    /// 23.976, 24, 25, 29.97, 30, 50, 59.94, 60.
    public static let standard: [Rational] = [
        Rational(24000, 1001), Rational(24, 1), Rational(25, 1), Rational(30000, 1001),
        Rational(30, 1), Rational(50, 1), Rational(60000, 1001), Rational(60, 1)
    ]
    /// How far (relative) a measured rate may be from a standard rate to be named by it: wider
    /// than phone jitter and the odd dropped frame, narrower than the step between 24 and 25.
    public static let tolerance = 0.015

    /// What the frames say: their mean step when it agrees with their median step (within
    /// 0.2%: the 1/600 time base's 20/21 mix averages to 29.97 where the median says 30), else
    /// the median (dropped frames pull the mean down, never the median).
    public static func measured(steps: [Rational]) -> Rational? {
        let positive = steps.filter { $0 > Rational(0, 1) }
        guard !positive.isEmpty else { return nil }
        let sorted = positive.sorted()
        let median = sorted[sorted.count / 2]
        var sum = Rational(0, 1)
        for s in sorted { guard let next = sum.adding(s) else { return median.inverse }; sum = next }
        guard let mean = sum.multiplied(by: Rational(1, Int64(sorted.count))) else { return median.inverse }
        return abs(mean.seconds / median.seconds - 1) <= 0.002 ? mean.inverse : median.inverse
    }

    /// The nominal rate: `stated` (the stream's own rate, FFmpeg's r_frame_rate) when it is a
    /// standard rate near the measured one (it tells 29.97 from 30); else the standard rate
    /// nearest to the measured one, if within `tolerance`; else `stated` if within 5% of the
    /// measured rate (240 fps slow motion, 1 fps timelapse); else the measured rate.
    /// `measured`: from the frames' steps (`measured(steps:)`), else the stream's average.
    public static func of(measured: Rational?, stated: Rational?) -> Rational? {
        let stated = stated.flatMap { $0.num > 0 && $0.den > 0 ? $0 : nil }
        guard let m = measured, m.num > 0 else { return stated }
        func distance(_ a: Rational, _ b: Rational) -> Double { abs(a.seconds / b.seconds - 1) }
        if let stated, standard.contains(stated), distance(m, stated) <= tolerance { return stated }
        if let nearest = standard.min(by: { distance(m, $0) < distance(m, $1) }), distance(m, nearest) <= tolerance { return nearest }
        if let stated, distance(m, stated) <= 0.05 { return stated }
        // A rate no stream states: to the thousandth of a frame per second (a step's inverse
        // can have a denominator no output time base holds).
        return Rational(max(1, Int64((m.seconds * 1000).rounded())), 1000)
    }
}
