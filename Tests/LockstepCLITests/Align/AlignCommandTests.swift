import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

final class AlignCommandTests: XCTestCase {
    func message(_ args: [String]) -> String {
        do { _ = try AlignCommand.parse(args); return "accepted" } catch { return AlignCommand.message(for: error) }
    }

    func testValidationSentences() {
        XCTAssertEqual(message([]), "align needs at least 2 inputs (the first is the reference); got 0.")
        XCTAssertEqual(message([Repository.shared("karma.mp4")]), "align needs at least 2 inputs (the first is the reference); got 1.")
        XCTAssertEqual(message([Repository.shared("karma.mp4"), "/nonexistent/b.mp4"]), "/nonexistent/b.mp4: no such file.")
        XCTAssertEqual(message([Repository.shared("karma.mp4"), "/tmp"]), "/tmp: is a folder, not a movie.")
        XCTAssertEqual(message(["--json", "--as-options", Repository.shared("karma.mp4"), Repository.shared("karma.mp4")]), "--json and --as-options: choose one.")
    }

    /// The real clip against a cut of itself made by ffmpeg (from sample 96,000: 2 s, PCM in
    /// MOV with ProRes): --json parses, the first input is the reference.
    func testJSONOnRealSound() throws {
        let folder = try Scratch.makeFolder("lockstep-align-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let karma = Repository.shared("karma.mp4"), cut = folder.appendingPathComponent("cut.mov").path
        try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-i", karma, "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=60000/1001",
                "-filter_complex", "[0:a]atrim=start_sample=96000,asetpts=N/SR/TB[a]", "-map", "1:v", "-map", "[a]", "-t", "6",
                "-c:v", "prores_ks", "-c:a", "pcm_s16le", cut
            ])
        let r = try Processes.lockstep(["align", "--json", karma, cut])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let inputs = doc["inputs"] as! [[String: Any]]
        XCTAssertEqual(inputs.map { $0["path"] as? String }, [karma, cut])
        XCTAssertEqual(inputs[0]["offset"] as? Double, 0)
        XCTAssertEqual(inputs[1]["offset"] as! Double, 2, accuracy: 0.001)
        XCTAssertEqual(inputs[1]["driftPpm"] as! Double, 0, accuracy: 25)
        XCTAssertGreaterThan(inputs[1]["confidence"] as! Double, 0.9)
        XCTAssertTrue(r.stdout.hasPrefix(#"{"inputs":[{"path":""#))
        // Text: one line per input.
        let text = try Processes.lockstep(["align", karma, cut])
        XCTAssertTrue(text.stdout.hasPrefix("input 1  \(karma)  reference (offset 0)\ninput 2  \(cut)  offset +"), text.stdout)
        XCTAssertTrue(text.stdout.contains("confidence 1.00"), text.stdout)
        // For composite: the first frames' offsets (both pictures start at 0 here) and the drifts.
        let options = try Processes.lockstep(["align", "--as-options", karma, cut])
        XCTAssertTrue(options.stdout.hasPrefix("--offsets 0.000000,"), options.stdout)
        let parts = options.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        XCTAssertEqual(parts.count, 4)
        XCTAssertEqual(Double(parts[1].split(separator: ",")[1])!, 2, accuracy: 0.001)
        XCTAssertEqual(parts[2], "--drift")
    }

    func testAnotherEventExits1NamingIt() throws {
        let hero = Repository.shared("gopro-hero7/hero7.mp4"), max = Repository.shared("gopro-max/max-heromode.mp4")
        let r = try Processes.lockstep(["align", hero, max])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("Error: input 2 (\(max)): its sound matches no part of input 1 (\(hero))"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }
}
