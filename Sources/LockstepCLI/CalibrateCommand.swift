import ArgumentParser
import Foundation
import Lockstep
import Motion

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Estimate the gyro bias (stillest second) and the IMU-to-video time offset (gyro against the video's own motion).")

    @Argument(help: "The movie.") var video: String
    @Option(help: ArgumentHelp("IMU trace: a trace store, a Gyroflow .gcsv or a .csv.", valueName: "TRACE")) var imu: String
    @Option(help: ArgumentHelp("Which trace of a store (needed when it holds several).", valueName: "ID")) var trace: Int64?
    @Option(help: ArgumentHelp("Starting profile: axis mapping, focal length.", valueName: "FILE")) var calibration: String?
    @Option(name: .customLong("focal-length"), help: ArgumentHelp("Focal length in pixels, if the profile has none.", valueName: "px"))
    var focalLength: Double?
    @Option(name: .customLong("search-ms"), help: "How far to search for the offset, either way.") var searchMs = 2000.0
    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the profile (JSON).", valueName: "FILE")) var output: String

    func validate() throws {
        guard FileManager.default.fileExists(atPath: video) else { throw ValidationError("\(video): no such file.") }
        guard FileManager.default.fileExists(atPath: imu) else { throw ValidationError("\(imu): no such file.") }
        if let f = focalLength, !(f > 0) { throw ValidationError("--focal-length must be positive.") }
        guard searchMs > 0 && searchMs <= 60_000 else { throw ValidationError("--search-ms must be between 0 and 60000.") }
    }

    func run() throws {
        var base = try calibration.map { try Calibration.load(URL(fileURLWithPath: $0)) }
            ?? Calibration(name: URL(fileURLWithPath: output).deletingPathExtension().lastPathComponent)
        if calibration != nil { base.name = URL(fileURLWithPath: output).deletingPathExtension().lastPathComponent }
        let r = try CalibrateJob.run(video: video, readings: try TraceSource.readings(imu, trace: trace), base: base, focalLength: focalLength, searchMs: searchMs)
        try r.profile.save(URL(fileURLWithPath: output))
        let confidence = r.estimate.correlation * (1 - r.estimate.ambiguity)
        print(String(format: "offset %.2f ms (IMU time + offset = video time); correlation %.3f, next best peak %.0f%% of it; confidence %.2f",
                     r.estimate.offsetMs, r.estimate.correlation, r.estimate.ambiguity * 100, confidence))
        if let b = r.measuredBias { print(String(format: "gyro bias %.5f %.5f %.5f rad/s (stillest second)", b[0], b[1], b[2])) }
        print("wrote \(output)")
        if confidence < 0.3 { FileHandle.standardError.write(Data("warning: low confidence: check the result before using it\n".utf8)) }
    }
}
