/// A straight line through measured points, y = intercept + slope x, by least squares with the
/// points that disagree left out: each round drops every point further from the line than
/// `floor` or 3.5 robust standard deviations (1.4826 times the median absolute residual),
/// whichever is wider, and fits again, until nothing changes (at most 8 rounds).
public struct LineFit: Equatable, Sendable {
    public var intercept: Double
    public var slope: Double
    /// Indices of the points the line was fitted to.
    public var inliers: [Int]
    /// Root mean square of the inliers' residuals.
    public var rms: Double
    /// Standard errors of the intercept and the slope (from the inliers' scatter).
    public var interceptError: Double
    public var slopeError: Double

    public func at(_ x: Double) -> Double { intercept + slope * x }

    /// nil with fewer than two points, or all at one x.
    public static func robust(x: [Double], y: [Double], floor: Double) -> LineFit? {
        precondition(x.count == y.count)
        var inliers = Array(x.indices)
        var fit = leastSquares(x: x, y: y, points: inliers)
        for _ in 0..<8 {
            guard let f = fit else { return nil }
            let residuals = x.indices.map { abs(y[$0] - f.at(x[$0])) }
            let mad = median(inliers.map { residuals[$0] })
            let limit = max(floor, 3.5 * 1.4826 * mad)
            let kept = x.indices.filter { residuals[$0] <= limit }
            if kept == inliers { break }
            guard kept.count >= 2 else { break }
            inliers = kept
            fit = leastSquares(x: x, y: y, points: inliers)
        }
        return fit
    }

    /// Plain least squares over `points` (indices).
    public static func leastSquares(x: [Double], y: [Double], points: [Int]) -> LineFit? {
        let n = Double(points.count)
        guard points.count >= 2 else { return nil }
        let mx = points.reduce(0) { $0 + x[$1] } / n, my = points.reduce(0) { $0 + y[$1] } / n
        var sxx = 0.0, sxy = 0.0
        for i in points { sxx += (x[i] - mx) * (x[i] - mx); sxy += (x[i] - mx) * (y[i] - my) }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx, intercept = my - slope * mx
        var ss = 0.0
        for i in points { let r = y[i] - intercept - slope * x[i]; ss += r * r }
        let rms = (ss / n).squareRoot()
        // The scatter of one point (n - 2 degrees of freedom), then the usual standard errors.
        let sigma = points.count > 2 ? (ss / (n - 2)).squareRoot() : 0
        return LineFit(
            intercept: intercept, slope: slope, inliers: points, rms: rms,
            interceptError: sigma * (1 / n + mx * mx / sxx).squareRoot(),
            slopeError: sigma / sxx.squareRoot())
    }

    static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return 0 }
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
