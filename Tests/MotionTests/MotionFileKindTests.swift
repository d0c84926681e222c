import Motion
import XCTest

/// The one decision of what a motion file is (`MotionFileKind.detect`, no I/O): content first,
/// the name only where the content says nothing Lockstep knows.
final class MotionFileKindTests: XCTestCase {
    let sqlite = Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 84)
    let gcsv = Array("GYROFLOW IMU LOG\nversion,1.3\n".utf8)
    let mp4: [UInt8] = [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 20)

    func kind(_ head: [UInt8], _ path: String, tail: [UInt8] = []) -> MotionFileKind { MotionFileKind.detect(head: head, tail: tail, path: path) }

    func testTheContentWinsOverTheName() {
        XCTAssertEqual(kind(sqlite, "traces.gcsv"), .traceStore, "a store named .gcsv")
        XCTAssertEqual(kind(sqlite, "clip.mp4"), .traceStore)
        XCTAssertEqual(kind(Array("loopIteration, time (us), gyroADC[0] (deg/s)\n".utf8), "flight.csv"), .blackboxCSV)
        XCTAssertEqual(kind([0xA3, 0x95, 0x80, 0x80], "log.bin"), .dataflash)
        XCTAssertEqual(kind(mp4, "clip.mp4", tail: Array("8db42d694ccc418790edff439fe026bf".utf8)), .insta360)
    }

    func testTheNameDecidesWhereTheContentSaysNothing() {
        XCTAssertEqual(kind(Array("t_ns,gx,gy,gz\n".utf8), "pan.csv"), .text(.csv))
        XCTAssertEqual(kind(gcsv, "shake.GCSV"), .text(.gcsv))
        XCTAssertEqual(kind([], "GOPR0001.MP4"), .movie, "a missing movie: its reader says why")
        XCTAssertEqual(kind([], "walk.360"), .movie)
        XCTAssertEqual(kind(Array("t_ns,gx,gy,gz\n".utf8), "trace.dat"), .other, "no kind: opened as a store, which refuses it")
    }

    func testUnnamedTraceFilesAndMoviesAreKnownByContent() {
        XCTAssertEqual(kind(gcsv, "trace.txt"), .text(.gcsv))
        XCTAssertEqual(kind(mp4, "clip.bin"), .movie)
        XCTAssertEqual(kind([0, 0, 0, 8] + Array("wide".utf8) + [0, 0, 0, 8] + Array("mdat".utf8), "old"), .movie, "a QuickTime file without ftyp")
        XCTAssertEqual(kind([0, 0, 0, 8] + Array("abcd".utf8), "x"), .other)
    }
}
