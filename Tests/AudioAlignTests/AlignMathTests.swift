import AudioAlign
import Foundation
import XCTest

final class AlignMathTests: XCTestCase {
    /// A sampled Gaussian of sigma 1 (what the weighted correlation peaks as) gives its centre
    /// back to well under a hundredth of a sample, wherever it lies between samples.
    func testPeakFindsASampledGaussiansCentre() throws {
        for centre in stride(from: 40.0, through: 41.0, by: 0.125) {
            var v = (0..<100).map { Float(exp(-0.5 * pow(Double($0) - centre, 2))) }
            v[80] = 0.3  // a rival place
            let p = try XCTUnwrap(CorrelationPeak.find(in: v, range: 0..<100, exclusion: 10))
            XCTAssertEqual(p.index, centre, accuracy: 0.01)
            XCTAssertFalse(p.atEdge)
            XCTAssertEqual(p.rivalZ / p.z, 0.3 / Double(v.max()!), accuracy: 1e-6)
        }
    }

    func testPeakHeightOverRmsAndEdges() throws {
        var v = [Float](repeating: 0, count: 100)
        v[0] = 1
        let p = try XCTUnwrap(CorrelationPeak.find(in: v, range: 0..<100, exclusion: 5))
        XCTAssertTrue(p.atEdge)
        XCTAssertEqual(p.z, 10, accuracy: 1e-9)  // 1 over sqrt(1/100)
        XCTAssertEqual(p.distinctness, .infinity)
        XCTAssertNil(CorrelationPeak.find(in: [Float](repeating: 0, count: 10), range: 0..<10, exclusion: 2))
        XCTAssertNil(CorrelationPeak.find(in: v, range: 200..<300, exclusion: 2))
    }

    /// Decimating keeps a sound below the new Nyquist frequency in place (no delay) and removes
    /// one above it.
    func testDecimatorKeepsTimeAndCutsAliases() {
        let d = Decimator(factor: 8)
        let low = (0..<8000).map { Float(sin(2 * Double.pi * 100 * Double($0) / 8000 + 0.3)) }
        let y = d(low)
        XCTAssertEqual(y.count, 1000)
        for m in 100..<900 {
            XCTAssertEqual(Double(y[m]), sin(2 * Double.pi * 100 * Double(m * 8) / 8000 + 0.3), accuracy: 0.01)
        }
        let high = (0..<8000).map { Float(sin(2 * Double.pi * 900 * Double($0) / 8000)) }  // 900 Hz, above 500
        XCTAssertLessThan(d(high)[100..<900].map { abs($0) }.max()!, 0.01)
    }

    func testRobustLineLeavesOutliersAndGivesErrors() throws {
        let x = (0..<20).map(Double.init)
        var y = x.map { 7.5 + 0.9997 * $0 + 0.00001 * sin($0 * 1.7) }
        y[4] += 0.05; y[13] -= 0.02
        let fit = try XCTUnwrap(LineFit.robust(x: x, y: y, floor: 0.00025))
        XCTAssertEqual(fit.intercept, 7.5, accuracy: 1e-5)
        XCTAssertEqual(fit.slope, 0.9997, accuracy: 1e-6)
        XCTAssertEqual(fit.inliers.count, 18)
        XCTAssertFalse(fit.inliers.contains(4)); XCTAssertFalse(fit.inliers.contains(13))
        XCTAssertLessThan(fit.slopeError, 1e-6)
        XCTAssertNil(LineFit.robust(x: [1, 1], y: [2, 3], floor: 0.001))
    }

    /// The weighting whitens (a bin's magnitude no longer matters, to the power 1 - beta) and
    /// keeps the phase difference: reference times the probe's conjugate.
    func testWeightKeepsPhaseAndWhitens() {
        let (a, b) = SpectralWeight.weigh(3, 4, 1, 0, gaussian: 1)  // R = 3+4i, P = 1
        let m = (a * a + b * b).squareRoot()
        XCTAssertEqual(Double(m), pow(5, 0.2), accuracy: 1e-4)
        XCTAssertEqual(Double(atan2(b, a)), atan2(4.0, 3.0), accuracy: 1e-5)
        let (c, d) = SpectralWeight.weigh(1, 0, 0, 1, gaussian: 0.5)  // R = 1, P = i: R conj(P) = -i
        XCTAssertEqual(c, 0, accuracy: 1e-6); XCTAssertEqual(d, -0.5, accuracy: 1e-6)
        XCTAssertEqual(SpectralWeight.weigh(0, 0, 0, 0, gaussian: 1).0, 0)
        XCTAssertEqual(SpectralWeight.gaussian(bin: 0, size: 1024), 1)
    }
}
