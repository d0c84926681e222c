import Foundation
import Glibc
import TestSupport
import XCTest

/// An import that runs out of disk (issue 40 A): SQLite stops on SQLITE_FULL with the store's
/// pages half-written and their old contents in the -journal, and plays the journal back only at
/// the connection's next read. The import must leave the store as it was, readable by `imu info`,
/// with nothing beside it; a new store must leave nothing at all.
final class IMUStoreFullDiskTests: IIOTestCase {
    /// A 2 MiB tmpfs in the scratch folder, unmounted at the end of the test (skipped where no
    /// tmpfs can be mounted).
    func smallDisk() throws -> String {
        let disk = scratch.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let m = try Processes.run("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", disk])
        guard m.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(m.stderr)") }
        addTeardownBlock { _ = try? Processes.run("umount", [disk]) }
        return disk
    }

    /// A CSV trace of 100,000 samples (about 6 MB once stored: more than the disk holds).
    func bigTrace() throws -> String {
        var text = "t_ns,gx,gy,gz\n"
        for i in 0..<100_000 { text += "\(i * 1_000_000),0.1,0.2,0.3\n" }
        return try file("big.csv", text)
    }

    /// Fills `disk` to within `leaving` bytes with a file named `fill`.
    func fill(_ disk: String, leaving: Int) throws {
        var st = statvfs()
        XCTAssertEqual(statvfs(disk, &st), 0)
        let free = Int(st.f_bavail) * Int(st.f_frsize)
        guard free > leaving else { return }
        try Data(count: free - leaving).write(to: URL(fileURLWithPath: disk + "/fill"))
    }

    func testAFailedImportLeavesAnExistingStoreAsItWasAndReadable() throws {
        let disk = try smallDisk()
        let big = try bigTrace()
        let made = scratch.appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try lockstep(["imu", "import", Self.fixture("shake.gcsv"), "-o", made]).status, 0)
        // The sweep's case (the import itself fills the disk), and a disk already nearly full.
        for leaving in [nil, 64 << 10] {
            let store = disk + "/s.sqlite"
            for name in try FileManager.default.contentsOfDirectory(atPath: disk) { try FileManager.default.removeItem(atPath: disk + "/" + name) }
            try FileManager.default.copyItem(atPath: made, toPath: store)
            if let leaving { try fill(disk, leaving: leaving) }
            let names = try FileManager.default.contentsOfDirectory(atPath: disk).sorted()
            let before = try Data(contentsOf: URL(fileURLWithPath: store))
            let info = try lockstep(["imu", "info", store])
            XCTAssertEqual(info.status, 0, info.stderr)

            let r = try lockstep(["imu", "import", big, "-o", store])
            XCTAssertEqual(r.status, 1, "\(leaving as Any)")
            XCTAssertEqual(r.stderr, "Error: \(store): storing samples failed (database or disk is full); nothing was imported\n", "\(leaving as Any)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk).sorted(), names, "no -journal, -wal, -shm or temporary left (\(leaving as Any))")
            XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "the store's bytes as they were (\(leaving as Any))")
            let again = try lockstep(["imu", "info", store])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(again.stdout, info.stdout, "the same traces (\(leaving as Any))")
            let export = try lockstep(["imu", "export", store, "-o", scratch.appendingPathComponent("out.csv").path])
            XCTAssertEqual(export.status, 0, export.stderr)
        }
    }

    func testAFailedImportIntoANewStoreOnAFullDiskLeavesNothing() throws {
        let disk = try smallDisk()
        let big = try bigTrace()
        for leaving in [nil, 64 << 10] {
            for name in try FileManager.default.contentsOfDirectory(atPath: disk) { try FileManager.default.removeItem(atPath: disk + "/" + name) }
            if let leaving { try fill(disk, leaving: leaving) }
            let names = try FileManager.default.contentsOfDirectory(atPath: disk).sorted()
            let store = disk + "/new.sqlite"
            let r = try lockstep(["imu", "import", big, "-o", store])
            XCTAssertEqual(r.status, 1, "\(leaving as Any)")
            XCTAssertEqual(r.stderr, "Error: \(store): storing samples failed (database or disk is full); nothing was imported\n", "\(leaving as Any)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk).sorted(), names, "nothing left (\(leaving as Any))")
        }
    }
}
