import Foundation
import XCTest

final class ProbeCommandTests: XCTestCase {
    func fixture(_ n: String) -> String { CommandLineTests.root.appendingPathComponent("Fixtures/\(n)").path }

    func testJSONReportsCountsRatesAndLayouts() throws {
        let r = try CommandLineTests.lockstep(["probe", "--json", fixture("q2.mp4")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let streams = doc["streams"] as! [[String: Any]]
        let v = streams.first { $0["type"] as? String == "video" }!, a = streams.first { $0["type"] as? String == "audio" }!
        XCTAssertEqual(v["frames"] as? Int, 57)
        XCTAssertEqual(v["averageFrameRate"] as? String, "30")
        XCTAssertEqual(v["measuredFrameRate"] as! Double, 30, accuracy: 0.01)
        XCTAssertEqual(v["width"] as? Int, 320)
        XCTAssertEqual(a["sampleRate"] as? Int, 32000)
        XCTAssertEqual(a["layout"] as? String, "5.1")
        XCTAssertEqual(a["duration"] as! Double, 1.9, accuracy: 0.03)
    }

    func testTextNamesTheStartOfALateInputAndTheFramesOfA25fpsOne() throws {
        let late = try CommandLineTests.lockstep(["probe", fixture("late.mkv")])
        XCTAssertTrue(late.stdout.contains("45 frames"), late.stdout)
        XCTAssertTrue(late.stdout.contains("starts 0.500 s"), late.stdout)
        let r25 = try CommandLineTests.lockstep(["probe", fixture("r25.mp4")])
        XCTAssertTrue(r25.stdout.contains("avg 25 fps, measured 25.000 fps, 50 frames"), r25.stdout)
    }

    func testANonMovieIsAnErrorNamingTheFile() throws {
        let r = try CommandLineTests.lockstep(["probe", fixture("notmovie.mp4")])
        XCTAssertEqual(r.status, 2, "unreadable: 2, as verify")
        XCTAssertEqual(r.stderr, "Error: \(fixture("notmovie.mp4")): not a movie FFmpeg can read (Invalid data found when processing input)\n")
    }

    func testAMissingFileExits2AsVerifyDoes() throws {
        let missing = try CommandLineTests.lockstep(["probe", "/nonexistent/clip.mp4"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stderr, "Error: /nonexistent/clip.mp4: No such file or directory (avformat_open_input)\n")
        let verify = try CommandLineTests.lockstep(["verify", "/nonexistent/clip.mp4"])
        XCTAssertEqual(verify.status, 2)
        let notMovie = try CommandLineTests.lockstep(["verify", fixture("notmovie.mp4")])
        XCTAssertEqual(notMovie.status, 2)
    }

    func testAFileWithoutVideoIsAnotherFailureExiting1() throws {
        let r = try CommandLineTests.lockstep(["probe", fixture("audioonly.m4a")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(fixture("audioonly.m4a")): no video stream\n")
    }
}
