import Foundation
import TestSupport
import TraceStore
import XCTest

/// The slow tier's trace-store race (issue 26, finding 2; moved out of `IMUStoreTransactionTests`
/// for the default tier's time, issue 43): two imports of 300,000 samples each into one store at
/// once: 17.6 s quiet (debug build, 2026-11-29), 300 s at load 25 in a tier run. The default tier keeps the wait on
/// a store another process reads (`testAnImportThatStoredItsTraceSaysSoWhileAReaderHoldsTheStore`).
final class IMUStoreTransactionSlowTests: IIOTestCase {
    var store: String { scratch.appendingPathComponent("s.sqlite").path }

    func importPan() throws {
        let r = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// Two imports at once: each waits for the other, each stores its trace once. The wait is
    /// set long: an import holds the store while it reads its batches, and under ASan on a
    /// loaded machine (the TSan build beside it in CI) 300,000 samples took more than the
    /// default 30 s, so the second import gave up (stop 31's red CI).
    func testTwoImportsAtOnceEachStoreTheirTraceOnce() throws {
        try importPan()
        var text = "t_ns,gx,gy,gz\n"
        for i in 0..<300_000 { text += "\(i * 5_000_000),0.1,0.2,0.3\n" }
        let big = try file("big.csv", text)
        let group = DispatchGroup()
        let results = Results()
        let args = [Self.binary, "imu", "import", big, "-o", store, "--busy-timeout", "600"]
        for _ in 0..<2 {
            group.enter()
            DispatchQueue.global().async {
                let r = try? Self.run(args, timeout: 1_200)
                results.add(r.map { ($0.status, String(decoding: $0.stdout, as: UTF8.self), $0.stderr) })
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(results.all.map(\.status), [0, 0], results.all.map(\.stderr).joined())
        XCTAssertEqual(Set(results.all.map(\.stdout)), ["2\n", "3\n"])
        let s = try TraceStore(path: store, mode: .readOnly)
        XCTAssertEqual(try s.traces().map(\.id), [1, 2, 3])
        XCTAssertEqual(try s.sampleCount(2), 300_000)
        XCTAssertEqual(try s.sampleCount(3), 300_000)
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [(status: Int32, stdout: String, stderr: String)] = []
        func add(_ r: (status: Int32, stdout: String, stderr: String)?) { lock.withLock { if let r { results.append(r) } } }
        var all: [(status: Int32, stdout: String, stderr: String)] { lock.withLock { results } }
    }
}
