import Spectral

/// The first pass of calibrate's offset search when the range is long (a short clip beside a
/// drone's or a phone's whole-session log): it does not depend on the axis mapping, so it runs
/// once per possible optical axis instead of once per orientation, and by FFT over the whole
/// range instead of offset by offset.
///
/// The picture's shift per second is f x the rate about the camera's x and y axes (a roll about
/// the optical axis moves the picture's centre nowhere), so its magnitude follows the norm of
/// the two gyro components perpendicular to the optical axis, whatever the signs and the order
/// of the other two. The optical axis is one of the IMU's three: three curves of normalised
/// cross-correlation (Pearson over the overlap at each lag) between the picture's motion
/// magnitude and each norm, both on one time grid, give the candidate offsets; the full search
/// over the 24 orientations then runs only near them (`GyroSync`, step 1).
enum MagnitudeSearch {
    struct Candidate: Equatable {
        var offsetMs: Double
        var score: Double
        /// The IMU axis taken as the optical axis for this peak.
        var opticalAxis: Int
    }

    /// Up to `count` peaks, best first, at least `separationMs` apart, inside `rangeMs`, where
    /// the grid cells overlapping cover at least half the clip.
    /// - opticalAxes: the IMU axes that may point along the camera's z (all three when searching).
    static func candidates(
        _ series: SyncSeries, gyro: GyroIntegral, rangeMs: ClosedRange<Double>, opticalAxes: [Int],
        gridMs: Double, count: Int, separationMs: Double, fft makeFFT: ComplexFFTMaker = RadixTwoFFT.make
    ) -> [Candidate] {
        guard series.count > 0, gyro.last > gyro.first else { return [] }
        let h = max(1, Int64((gridMs * 1e6).rounded()))
        let v0 = series.from[0], t0 = gyro.first
        let m = Int((series.to[series.count - 1] - v0 + h - 1) / h)
        let ng = Int((gyro.last - t0) / h)
        guard m >= 4, ng >= 2 else { return [] }
        let video = pictureSpeed(series, start: v0, cell: h, cells: m)
        let rates = meanRates(gyro, start: t0, cell: h, cells: ng)

        var size = 1
        while size < m + ng { size <<= 1 }
        let fft = makeFFT(size)
        var vr = [Double](repeating: 0, count: size), vi = [Double](repeating: 0, count: size)
        let vMean = video.reduce(0, +) / Double(m)
        for i in 0..<m { vr[i] = video[i] - vMean }
        let pv = prefixSums(vr[0..<m]), pvv = prefixSums(vr[0..<m].map { $0 * $0 }[...])
        fft.forward(&vr, &vi)
        let needed = max(3, m / 2)

        var found: [Candidate] = []
        for axis in opticalAxes {
            let (a, b) = ((axis + 1) % 3, (axis + 2) % 3)
            var g = rates.map { ($0[a] * $0[a] + $0[b] * $0[b]).squareRoot() }
            let gMean = g.reduce(0, +) / Double(ng)
            for j in g.indices { g[j] -= gMean }
            let pg = prefixSums(g[...]), pgg = prefixSums(g.map { $0 * $0 }[...])
            var gr = [Double](repeating: 0, count: size), gi = [Double](repeating: 0, count: size)
            for j in 0..<ng { gr[j] = g[j] }
            fft.forward(&gr, &gi)
            // conj(V) * G: its inverse at lag L is sum over i of v[i] * g[i + L].
            for k in 0..<size {
                let re = vr[k] * gr[k] + vi[k] * gi[k], im = vr[k] * gi[k] - vi[k] * gr[k]
                gr[k] = re; gi[k] = im
            }
            fft.inverse(&gr, &gi)
            // Video cell i meets gyro cell i + L at offset (v0 - t0 - L h): video = IMU + offset.
            func offsetMs(_ lag: Int) -> Double { Double(v0 - t0 - Int64(lag) * h) / 1e6 }
            var curve: [(lag: Int, r: Double)] = []
            for lag in (-(m - 1))..<ng {
                let o = offsetMs(lag)
                guard rangeMs.contains(o) else { continue }
                let i0 = max(0, -lag), i1 = min(m, ng - lag)
                let n = i1 - i0
                guard n >= needed else { continue }
                let sv = pv[i1] - pv[i0], svv = pvv[i1] - pvv[i0]
                let sg = pg[i1 + lag] - pg[i0 + lag], sgg = pgg[i1 + lag] - pgg[i0 + lag]
                let svg = gr[(lag % size + size) % size]
                let nn = Double(n)
                // A trace at rest there (under 1e-6 rad/s of spread: rounding, not motion) matches nothing.
                let varV = svv - sv * sv / nn, varG = sgg - sg * sg / nn
                curve.append((lag, varV > 1e-9 * nn && varG > 1e-12 * nn ? (svg - sv * sg / nn) / (varV * varG).squareRoot() : 0))
            }
            for (k, p) in curve.enumerated() where p.r > 0 {
                let left = k > 0 && curve[k - 1].lag == p.lag - 1 ? curve[k - 1].r : -2
                let right = k + 1 < curve.count && curve[k + 1].lag == p.lag + 1 ? curve[k + 1].r : -2
                if p.r >= left && p.r > right { found.append(Candidate(offsetMs: offsetMs(p.lag), score: p.r, opticalAxis: axis)) }
            }
        }
        var chosen: [Candidate] = []
        for c in found.sorted(by: { $0.score > $1.score }) where chosen.count < count {
            if chosen.allSatisfy({ abs($0.offsetMs - c.offsetMs) >= separationMs }) { chosen.append(c) }
        }
        return chosen
    }

    /// The picture's speed (px/s) in each grid cell: the intervals' |shift| / duration, weighted by
    /// how much of the cell each covers (0 where none does).
    static func pictureSpeed(_ series: SyncSeries, start: Int64, cell h: Int64, cells m: Int) -> [Double] {
        var sum = [Double](repeating: 0, count: m), weight = [Double](repeating: 0, count: m)
        for k in 0..<series.count {
            let a = series.from[k] - start, b = series.to[k] - start
            let speed = (series.dx[k] * series.dx[k] + series.dy[k] * series.dy[k]).squareRoot() / (Double(b - a) / 1e9)
            var c = Int(a / h)
            while c < m && Int64(c) * h < b {
                let w = Double(min(b, Int64(c + 1) * h) - max(a, Int64(c) * h))
                if w > 0 { sum[c] += speed * w; weight[c] += w }
                c += 1
            }
        }
        return (0..<m).map { weight[$0] > 0 ? sum[$0] / weight[$0] : 0 }
    }

    /// The gyro's mean rate over each grid cell from `start` (IMU clock).
    static func meanRates(_ gyro: GyroIntegral, start: Int64, cell h: Int64, cells n: Int) -> [Vec3] {
        var hint = 0
        var previous = gyro.at(start, hint: &hint) ?? .zero
        var out: [Vec3] = []
        out.reserveCapacity(n)
        for j in 0..<n {
            let next = gyro.at(start + Int64(j + 1) * h, hint: &hint) ?? previous
            out.append((next - previous) / (Double(h) / 1e9))
            previous = next
        }
        return out
    }

    static func prefixSums(_ x: ArraySlice<Double>) -> [Double] {
        var out = [0.0]
        out.reserveCapacity(x.count + 1)
        for v in x { out.append(out[out.count - 1] + v) }
        return out
    }
}
