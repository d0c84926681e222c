import Foundation

/// An SVG picture of the three angular rates over time, with axes, labels, a legend and gaps
/// shaded. Samples are streamed in; each pixel column keeps its first, lowest, highest and last
/// value per axis, so a trace of millions of samples makes a picture of bounded size.
public struct SVGPlot {
    public var width = 1000.0, height = 620.0
    private let left = 80.0, right = 20.0, top = 44.0, bottom = 56.0
    private let start: Int64, end: Int64
    private let columns: Int
    /// Per axis, per column: first, min, max, last.
    private var cells: [[(Double, Double, Double, Double)?]]
    /// Column after which a gap begins: the line breaks there.
    private var breaks = Set<Int>()
    private var gaps: [TraceStatistics.Gap]
    private var previousT: Int64?
    private let gapLimit: Int64

    public init(start: Int64, end: Int64, gaps: [TraceStatistics.Gap], medianInterval: Int64?) {
        self.start = start; self.end = max(end, start + 1); self.gaps = gaps
        columns = Int(width - left - right)
        cells = Array(repeating: Array(repeating: nil, count: columns), count: 3)
        gapLimit = TraceStatistics.gapFactor * max(medianInterval ?? .max / 4, 1)
    }

    private func column(_ t: Int64) -> Int {
        min(columns - 1, max(0, Int(Double(t - start) / Double(end - start) * Double(columns))))
    }

    public mutating func add(_ r: IMUReading) {
        let c = column(r.t)
        if let p = previousT, r.t - p > gapLimit { breaks.insert(column(p)) }
        previousT = r.t
        for (axis, v) in [r.gyro.x, r.gyro.y, r.gyro.z].enumerated() {
            if let (f, lo, hi, _) = cells[axis][c] { cells[axis][c] = (f, min(lo, v), max(hi, v), v) } else { cells[axis][c] = (v, v, v, v) }
        }
    }

    /// Round steps (1, 2 or 5 times a power of ten) covering lo...hi with about `count` ticks,
    /// and never fewer than two: rounding the step up alone could leave one (a gyro axis from
    /// -0.9 to 0.9 rad/s got a step of 1 and the single tick "0").
    static func ticks(_ lo: Double, _ hi: Double, count: Double = 6) -> [Double] {
        let span = max(hi - lo, 1e-12)
        let raw = span / count, mag = pow(10, floor(log10(raw)))
        let steps = [0.1, 0.2, 0.5, 1.0, 2, 5, 10].map { $0 * mag }
        var k = steps.firstIndex { $0 >= raw } ?? steps.count - 1
        func marks(_ step: Double) -> [Double] {
            var t = (lo / step).rounded(.up) * step, out: [Double] = []
            while t <= hi + step * 1e-9 { out.append(abs(t) < step * 1e-9 ? 0 : t); t += step }
            return out
        }
        var out = marks(steps[k])
        while out.count < 2 && k > 0 { k -= 1; out = marks(steps[k]) }
        return out
    }

    static func label(_ v: Double) -> String {
        let s = String(format: "%.6g", v)
        return s == "-0" ? "0" : s
    }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// Each axis in a panel of its own, one above the other, each with its own scale, sharing
    /// the time axis: three lines in one panel drew one axis over another (a still axis hid
    /// behind the others near 0), and a large axis flattened the small ones.
    public func render(title: String) -> String {
        let plotW = width - left - right, panelGap = 16.0
        let panelH = (height - top - bottom - 2 * panelGap) / 3
        let seconds = Double(end - start) / 1e9
        func x(_ s: Double) -> Double { left + s / seconds * plotW }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        let colours = ["#d62728", "#2ca02c", "#1f77b4"], names = ["gx", "gy", "gz"]
        let plotsBottom = top + 3 * panelH + 2 * panelGap

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(width / 2))" y="24" text-anchor="middle" font-size="15">\(Self.escape(title))</text>

            """
        for g in gaps {
            let a = x(Double(g.start - start) / 1e9), b = x(Double(g.start + g.length - start) / 1e9)
            svg += "<rect class=\"gap\" x=\"\(f(a))\" y=\"\(f(top))\" width=\"\(f(max(b - a, 2)))\" height=\"\(f(plotsBottom - top))\" fill=\"#f4c430\" fill-opacity=\"0.35\"/>\n"
            svg += "<text x=\"\(f((a + b) / 2))\" y=\"\(f(top + 14))\" text-anchor=\"middle\" fill=\"#8a6d00\">gap \(Self.label(Double(g.length) / 1e6)) ms</text>\n"
        }
        for axis in 0..<3 {
            let panelTop = top + Double(axis) * (panelH + panelGap)
            var lo = Double.infinity, hi = -Double.infinity
            for case let (_, l, h, _)? in cells[axis] { lo = min(lo, l); hi = max(hi, h) }
            if !lo.isFinite { lo = -1; hi = 1 }
            if hi - lo < 1e-6 { lo -= 0.05; hi += 0.05 }
            let pad = (hi - lo) * 0.05
            lo -= pad; hi += pad
            func y(_ v: Double) -> Double { panelTop + (hi - v) / (hi - lo) * panelH }
            for t in Self.ticks(lo, hi, count: 3) {
                svg += "<line x1=\"\(f(left))\" x2=\"\(f(left + plotW))\" y1=\"\(f(y(t)))\" y2=\"\(f(y(t)))\" stroke=\"#ddd\"/>"
                svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\">\(Self.label(t))</text>\n"
            }
            svg += "<rect class=\"panel\" x=\"\(f(left))\" y=\"\(f(panelTop))\" width=\"\(f(plotW))\" height=\"\(f(panelH))\" fill=\"none\" stroke=\"black\"/>\n"
            svg += "<text x=\"\(f(left + 8))\" y=\"\(f(panelTop + 14))\" fill=\"\(colours[axis])\" font-weight=\"bold\">\(names[axis])</text>\n"
            var runs: [String] = [], points: [String] = []
            for c in 0..<columns {
                guard let (first, l, h, last) = cells[axis][c] else { continue }
                let px = left + (Double(c) + 0.5)
                for v in [first, l, h, last] { points.append("\(f(px)),\(f(y(v)))") }
                if breaks.contains(c) { runs.append(points.joined(separator: " ")); points = [] }
            }
            runs.append(points.joined(separator: " "))
            for run in runs where !run.isEmpty {
                svg += "<polyline class=\"\(names[axis])\" fill=\"none\" stroke=\"\(colours[axis])\" stroke-width=\"1.2\" points=\"\(run)\"/>\n"
            }
        }
        for t in Self.ticks(0, seconds) {
            svg += "<line x1=\"\(f(x(t)))\" x2=\"\(f(x(t)))\" y1=\"\(f(plotsBottom))\" y2=\"\(f(plotsBottom + 5))\" stroke=\"black\"/>"
            svg += "<text x=\"\(f(x(t)))\" y=\"\(f(plotsBottom + 19))\" text-anchor=\"middle\">\(Self.label(t))</text>\n"
        }
        svg += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(height - 12))\" text-anchor=\"middle\">time (s) from the first sample</text>\n"
        svg += "<text transform=\"translate(18 \(f((top + plotsBottom) / 2))) rotate(-90)\" text-anchor=\"middle\">angular rate (rad/s)</text>\n"
        svg += "</svg>\n"
        return svg
    }
}
