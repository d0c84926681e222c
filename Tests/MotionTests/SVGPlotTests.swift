import Foundation
import XCTest

@testable import Motion

#if canImport(FoundationXML)
    import FoundationXML
#endif

final class SVGPlotTests: XCTestCase {
    func plot(_ times: [Int64]) -> String {
        let stats = TraceStatistics(timestamps: times)
        var p = SVGPlot(start: stats.first!, end: stats.last!, gaps: stats.gaps, medianInterval: stats.medianInterval)
        for (i, t) in times.enumerated() { p.add(IMUReading(t: t, gyro: SIMD3(sin(Double(i) / 10), 0.5, -0.25))) }
        return p.render(title: "test <trace>")
    }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    func testAxesLabelsLegendAndWellFormedXML() throws {
        let svg = plot((0..<2000).map { Int64($0) * 5_000_000 })
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse(), "the SVG must be well-formed XML")
        XCTAssertTrue(svg.contains("time (s) from the first sample")); XCTAssertTrue(svg.contains("angular rate (rad/s)"))
        XCTAssertTrue(svg.contains("test &lt;trace&gt;"))
        for axis in ["gx", "gy", "gz"] { XCTAssertEqual(count("class=\"\(axis)\"", in: svg), 1, axis) }
        XCTAssertEqual(count("class=\"gap\"", in: svg), 0)
        XCTAssertLessThan(svg.utf8.count, 200_000, "2000 samples are drawn per pixel column, not per sample")
    }

    func testGapsAreShadedAndBreakTheLines() throws {
        var t = (0..<400).map { Int64($0) * 5_000_000 }
        t += (0..<400).map { 3_000_000_000 + Int64($0) * 5_000_000 }
        let svg = plot(t)
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse())
        XCTAssertEqual(count("class=\"gap\"", in: svg), 1)
        XCTAssertTrue(svg.contains("gap 1005 ms"))
        for axis in ["gx", "gy", "gz"] { XCTAssertEqual(count("class=\"\(axis)\"", in: svg), 2, "\(axis): one line either side of the gap") }
    }

    /// Each axis is drawn in a panel of its own (issue 26: three lines in one panel drew one axis
    /// over another): the y coordinates of gx, gy and gz lie in three disjoint bands, even where
    /// the values are the same.
    func testEachAxisIsDrawnInItsOwnPanel() throws {
        let times = (0..<2000).map { Int64($0) * 5_000_000 }
        let stats = TraceStatistics(timestamps: times)
        var p = SVGPlot(start: stats.first!, end: stats.last!, gaps: stats.gaps, medianInterval: stats.medianInterval)
        for (i, t) in times.enumerated() { let v = 0.01 * sin(Double(i) / 10); p.add(IMUReading(t: t, gyro: SIMD3(v, v, v))) }
        let svg = p.render(title: "same values on every axis")
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse())
        var bands: [(Double, Double)] = []
        for axis in ["gx", "gy", "gz"] {
            let line = try XCTUnwrap(svg.split(separator: "\n").first { $0.contains("class=\"\(axis)\"") })
            let points = try XCTUnwrap(line.range(of: "points=\"")).upperBound
            let ys = line[points...].prefix { $0 != "\"" }.split(separator: " ").compactMap { Double($0.split(separator: ",")[1]) }
            bands.append((ys.min()!, ys.max()!))
        }
        XCTAssertLessThan(bands[0].1, bands[1].0, "gx above gy: \(bands)")
        XCTAssertLessThan(bands[1].1, bands[2].0, "gy above gz: \(bands)")
        XCTAssertEqual(count("class=\"panel\"", in: svg), 3)
    }

    func testTicksAreRound() {
        XCTAssertEqual(SVGPlot.ticks(0, 2.995), [0, 0.5, 1, 1.5, 2, 2.5])
        XCTAssertEqual(SVGPlot.ticks(-3.2, 3.2), [-2, 0, 2])
        XCTAssertEqual(SVGPlot.ticks(0, 0.07), [0, 0.02, 0.04, 0.06])
        // A panel's three ticks never shrink to one (issue 41: the gy panel showed only "0").
        XCTAssertEqual(SVGPlot.ticks(-0.9, 0.9, count: 3), [-0.5, 0, 0.5])
        for hi in stride(from: 0.11, through: 9.9, by: 0.37) {
            XCTAssertGreaterThanOrEqual(SVGPlot.ticks(-hi, hi, count: 3).count, 2, "-\(hi)...\(hi)")
            XCTAssertGreaterThanOrEqual(SVGPlot.ticks(0.02 * hi, hi, count: 3).count, 2, "\(0.02 * hi)...\(hi)")
        }
    }
}
