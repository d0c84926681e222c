import Engine
import XCTest

/// The progress line every command draws on a terminal: what was done, of how much, how fast,
/// and when it ends; in the unit of the job (frames, sound read, readings).
final class ProgressLineTests: XCTestCase {
    func testFrames() {
        XCTAssertEqual(ProgressMeter.line(done: 120, total: 300, elapsed: 2, unit: .frames), "frame 120/300  40%  60.0 fps  ETA 0:03")
        XCTAssertEqual(ProgressMeter.line(done: 120, total: nil, elapsed: 2, unit: .frames), "frame 120  60.0 fps")
        // A total the output overran (a container's count that lied) stops at 100%, ETA 0.
        XCTAssertEqual(ProgressMeter.line(done: 400, total: 300, elapsed: 4, unit: .frames), "frame 400/300  100%  100.0 fps  ETA 0:00")
    }

    func testSoundReadInSeconds() {
        XCTAssertEqual(ProgressMeter.line(done: 12_400, total: 60_000, elapsed: 2, unit: .milliseconds), "12.4/60.0 s  20%  6.2x  ETA 0:08")
    }

    func testReadingsAndBytes() {
        XCTAssertEqual(ProgressMeter.line(done: 12_000, total: 300_000, elapsed: 0.3, unit: .readings), "reading 12000/300000  4%  40000/s  ETA 0:07")
        XCTAssertEqual(ProgressMeter.line(done: 12_100_000, total: 50_000_000, elapsed: 1.5, unit: .bytes), "12.1/50.0 MB  24%  8.1 MB/s  ETA 0:05")
    }
}
