import Foundation
import Lockstep
import TestSupport
import XCTest

/// The IMU jobs and `TraceSource` from Swift, without the CLI: what a user of the library runs.
final class IMUJobTests: ScratchTestCase {
    static let imu = Repository.fixtures.appendingPathComponent("imu")
    func fixture(_ name: String) -> String { Self.imu.appendingPathComponent(name).path }
    var store: String { scratch.appendingPathComponent("s.sqlite").path }
    /// The scratch folder's names, but for the -wal and -shm files SQLite leaves beside a WAL
    /// store read through a read-only connection (which may not remove them).
    func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
    }

    func testImportThenReadTheSameTraceFromStoreAndFile() throws {
        let r = try IMUImportJob(options: IMUImportOptions(file: fixture("shake.gcsv"), store: store)).run()
        XCTAssertEqual(r.trace, 1)
        XCTAssertEqual(r.statistics.count, 580)
        XCTAssertEqual(r.warning, "\(fixture("shake.gcsv")): 1 gap (steps over twice the median 0.005 s); the first at 1.495 s, 0.105 s long")
        let fromStore = try TraceSource.open(path: store).readings()
        let fromFile = try TraceSource.open(path: fixture("shake.gcsv")).readings()
        XCTAssertEqual(fromStore.map(\.t), fromFile.map(\.t))
        XCTAssertEqual(try TraceSource.open(path: store, trace: 1).single().info.orientation, "xzY")
        guard case .gcsv = try TraceSource.open(path: fixture("shake.gcsv")) else { return XCTFail("a .gcsv opens as gcsv") }
        guard case .csv = try TraceSource.open(path: fixture("shake.gcsv"), format: .csv) else { return XCTFail("format wins") }
        XCTAssertThrowsError(try TraceSource.open(path: fixture("pan.csv"), trace: 2)) {
            XCTAssertEqual("\($0)", "\(self.fixture("pan.csv")) holds one trace (1); there is no trace 2")
        }
        let reports = try IMUInfoJob.reports(try TraceSource.open(path: store))
        XCTAssertEqual(reports.map(\.samples), [580])
        XCTAssertTrue(reports[0].text.hasPrefix("trace 1: lockstep_fixture, from \(fixture("shake.gcsv"))\n  samples   580 (gyro and accelerometer)\n"))
    }

    func testACancelledImportLeavesNothing() throws {
        let job = IMUImportJob(options: IMUImportOptions(file: fixture("pan.csv"), store: store))
        job.cancel()
        XCTAssertThrowsError(try job.run()) { XCTAssertEqual($0 as? IMUJobError, IMUImportJob.cancelled) }
        XCTAssertEqual(try listing(), [])
    }

    func testExportWritesOnlyWhenComplete() throws {
        _ = try IMUImportJob(options: IMUImportOptions(file: fixture("pan.csv"), store: store)).run()
        let out = scratch.appendingPathComponent("w.csv").path
        let r = try IMUExportJob(options: IMUExportOptions(store: store, trace: nil, from: 1, to: 1e300, output: out)).run()
        XCTAssertEqual(r.count, 600, "4 s at 200 Hz from 1 s on; a huge --to is the end, not an overflow")
        XCTAssertEqual(try listing(), ["s.sqlite", "w.csv"])
        XCTAssertThrowsError(try IMUExportJob(options: IMUExportOptions(store: store, trace: 9, output: out)).run()) { XCTAssertEqual("\($0)", "\(self.store): no trace 9") }
        XCTAssertEqual(try listing(), ["s.sqlite", "w.csv"], "no temporary file left")
    }
}
