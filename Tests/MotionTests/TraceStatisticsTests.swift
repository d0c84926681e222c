import Motion
import XCTest

final class TraceStatisticsTests: XCTestCase {
    func testSteadyTrace() {
        let s = TraceStatistics(timestamps: (0..<201).map { Int64($0) * 5_000_000 })
        XCTAssertEqual(s.count, 201); XCTAssertEqual(s.duration, 1_000_000_000)
        XCTAssertEqual(s.rate!, 200, accuracy: 1e-9)
        XCTAssertEqual(s.medianInterval, 5_000_000); XCTAssertEqual(s.jitter, 0)
        XCTAssertEqual(s.gapCount, 0)
    }

    func testJitterIsTheStandardDeviationOfNonGapSteps() {
        // Steps alternate 4 ms and 6 ms: mean 5 ms, deviation 1 ms; one 50 ms gap, left out of the jitter.
        var t: [Int64] = [0]
        for i in 0..<100 { t.append(t.last! + (i % 2 == 0 ? 4_000_000 : 6_000_000)) }
        t.append(t.last! + 50_000_000)
        t.append(t.last! + 4_000_000)
        let s = TraceStatistics(timestamps: t)
        XCTAssertEqual(s.jitter!, 1_000_000, accuracy: 20_000)
        XCTAssertEqual(s.gapCount, 1)
        XCTAssertEqual(s.gaps, [.init(start: t[100], length: 50_000_000)])
    }

    func testGapIsMoreThanTwiceTheMedian() {
        let t: [Int64] = [0, 10, 20, 30, 50, 71, 81].map { $0 * 1_000_000 }
        let s = TraceStatistics(timestamps: t)
        XCTAssertEqual(s.medianInterval, 10_000_000)
        XCTAssertEqual(s.gaps.map(\.length), [21_000_000], "20 ms is not a gap, 21 ms is")
    }

    func testTooShortTraces() {
        XCTAssertNil(TraceStatistics(timestamps: []).rate)
        let one = TraceStatistics(timestamps: [7])
        XCTAssertEqual(one.count, 1); XCTAssertNil(one.rate); XCTAssertNil(one.medianInterval)
    }

    func testStreamIsVisitedTwice() {
        var passes = 0
        let s = TraceStatistics.measure { visit in
            passes += 1; for t in stride(from: Int64(0), to: 100, by: 10) { visit(t) }
        }
        XCTAssertEqual(passes, 2); XCTAssertEqual(s.count, 10)
    }
}
