import Foundation
import TestSupport
import XCTest

/// `imu import` of a blackbox log keeps its memory flat in the log's length (issue 40 B): the
/// file is read through a mapping whose pages are given back as the decoder passes them, and the
/// samples go to the store in batches. The whole log in memory took a 200 MB log to 264 MB.
enum BlackboxImportMemory {
    /// A one-log blackbox file of about `megabytes` MB written here: an I frame, then P frames of
    /// about 190 bytes (gyro plus 36 fields of five-byte deltas, as a log full of debug fields
    /// is), 1 ms apart, and the "End of log" event. Returns its path and its frame count.
    static func log(_ path: String, megabytes: Int) throws -> Int {
        func uvb(_ v: UInt32) -> [UInt8] {
            var v = v, out: [UInt8] = []
            while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            return out + [UInt8(v)]
        }
        func svb(_ v: Int32) -> [UInt8] { uvb(UInt32(bitPattern: (v << 1) ^ (v >> 31))) }
        let pads = 36
        let names = ["loopIteration", "time", "gyroADC[0]", "gyroADC[1]", "gyroADC[2]"] + (0..<pads).map { "debug[\($0)]" }
        func list(_ first: [Int], _ rest: Int) -> String { (first + [Int](repeating: rest, count: names.count - first.count)).map(String.init).joined(separator: ",") }
        let lines = [
            "Product:Blackbox flight data recorder by Nicholas Sherlock", "Data version:2",
            "Field I name:" + names.joined(separator: ","), "Field I signed:" + list([0, 0], 1),
            "Field I predictor:" + list([], 0), "Field I encoding:" + list([1, 1], 0),
            "Field P predictor:" + list([6, 2], 1), "Field P encoding:" + list([9, 0], 0),
            "Firmware type:Cleanflight", "Firmware revision:Betaflight 4.4.0 (test) STM32F405",
            "I interval:32", "P interval:1/1", "gyro_scale:0x3f800000", "looptime:1000"
        ]
        var bytes = Array(lines.map { "H \($0)\n" }.joined().utf8)
        bytes += [0x49] + uvb(0) + uvb(1000) + [0, 0, 0].flatMap(svb) + [Int32](repeating: 0, count: pads).flatMap(svb)
        // The first P frame sets the 1 ms step (time by straight line); the gyro goes +1, -1.
        func p(_ dt: Int32, _ g: Int32) -> [UInt8] { [0x50] + svb(dt) + [g, g, g].flatMap(svb) + [Int32](repeating: 1 << 29, count: pads).flatMap(svb) }
        bytes += p(1000, 1)
        let pair = p(0, -1) + p(0, 1)
        let count = (megabytes * 1_000_000 - bytes.count) / pair.count
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
        let chunk = [UInt8]([[UInt8]](repeating: pair, count: 1000).joined())
        for _ in 0..<count / 1000 { try handle.write(contentsOf: chunk) }
        try handle.write(contentsOf: [UInt8]([[UInt8]](repeating: pair, count: count % 1000).joined()) + [0x45, 0xFF] + Array("End of log\0".utf8))
        return 2 + 2 * count
    }

    /// `lockstep imu import LOG -o STORE` under /usr/bin/time: its peak resident set in kB.
    static func peakKB(importing log: String, into store: String, frames: Int) throws -> Int {
        let report = store + ".time"
        let r = try Processes.run("/usr/bin/time", ["-f", "%M", "-o", report, Repository.binary.path, "imu", "import", log, "-o", store], timeout: 600)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "1\n")
        let count = try Processes.run("/usr/bin/sqlite3", [store, "SELECT count(*) FROM sample"])
        XCTAssertEqual(String(decoding: count.stdout, as: UTF8.self), "\(frames)\n", "every frame stored")
        let text = try String(contentsOfFile: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int(text.split(separator: "\n").last ?? "") ?? -1
    }

    /// Imports a log of `small` and one of `large` MB; returns both peaks (kB).
    static func peaks(in scratch: URL, small: Int, large: Int) throws -> (Int, Int) {
        var out: [Int] = []
        for mb in [small, large] {
            let log = scratch.appendingPathComponent("m\(mb).bbl").path
            let frames = try Self.log(log, megabytes: mb)
            out.append(try peakKB(importing: log, into: scratch.appendingPathComponent("m\(mb).sqlite").path, frames: frames))
            try FileManager.default.removeItem(atPath: log)
        }
        return (out[0], out[1])
    }
}

final class BlackboxImportMemoryTests: ScratchFolderTestCase {
    /// 4 MB and 24 MB: the whole file in memory made the second peak at least 20 MB higher.
    func testImportMemoryDoesNotGrowWithTheLog() throws {
        let (small, large) = try BlackboxImportMemory.peaks(in: scratch, small: 4, large: 24)
        XCTAssertLessThan(large - small, 6_000, "peak RSS \(small) kB for 4 MB, \(large) kB for 24 MB")
    }
}

final class BlackboxImportMemorySlowTests: ScratchFolderTestCase {
    /// 20 MB and 100 MB, as the issue asks.
    func testImportMemoryDoesNotGrowWithTheLog() throws {
        let (small, large) = try BlackboxImportMemory.peaks(in: scratch, small: 20, large: 100)
        XCTAssertLessThan(large - small, 6_000, "peak RSS \(small) kB for 20 MB, \(large) kB for 100 MB")
    }
}
