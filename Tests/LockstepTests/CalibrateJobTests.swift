import Foundation
import Motion
import XCTest
@testable import Lockstep

/// Calibration on the synthetic camera (scripts/make-synthetic-camera): the offset and bias it
/// was made with must come back.
final class CalibrateJobTests: XCTestCase {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/synthetic")

    struct Truth: Decodable { var timeOffsetMs: Double; var gyroBias: [Double]; var focalLengthPx: Double }

    /// The fixture's CSV (t_ns,gx,gy,gz,ax,ay,az), read plainly: this test is about calibration.
    static func readings() throws -> [IMUReading] {
        let text = try String(contentsOf: Self.dir.appendingPathComponent("pan-imu.csv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let v = line.split(separator: ",").map { Double($0)! }
            return IMUReading(t: Int64(v[0]), gyro: (v[1], v[2], v[3]), accel: (v[4], v[5], v[6]))
        }
    }

    func testRecoversTheSyntheticCamerasOffsetAndBias() throws {
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.dir.appendingPathComponent("truth.json")))
        let r = try CalibrateJob.run(video: Self.dir.appendingPathComponent("pan.mp4").path, readings: Self.readings(),
                                     base: Calibration(name: "synthetic", focalLengthPx: truth.focalLengthPx))
        XCTAssertEqual(r.frames, 180)
        XCTAssertEqual(r.profile.timeOffsetMs, truth.timeOffsetMs, accuracy: 2, "offset within 2 ms")
        XCTAssertGreaterThan(r.estimate.correlation, 0.9)
        for i in 0..<3 {
            XCTAssertEqual(r.profile.gyroBias[i], truth.gyroBias[i], accuracy: abs(truth.gyroBias[i]) * 0.1, "bias axis \(i) within 10%")
        }
    }

    func testAStillClipIsRefusedNamingTheFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("still-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let still = dir.appendingPathComponent("still.mp4").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3,trim=end_frame=1,loop=89:1", "-c:v", "libx264", still]
        try p.run(); p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertThrowsError(try CalibrateJob.run(video: still, readings: Self.readings(), base: Calibration(name: "x", focalLengthPx: 300))) {
            XCTAssertTrue("\($0)".hasPrefix("\(still): the video barely moves"), "\($0)")
        }
    }
}
