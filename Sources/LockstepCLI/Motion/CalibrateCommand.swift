import ArgumentParser
import Foundation
import Lockstep

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Find the IMU's axis mapping, clock offset and drift, focal length and gyro bias by matching the gyro against the video's own motion.")

    @Argument(help: "The movie.") var video: String
    @Option(
        help: ArgumentHelp(
            "IMU trace: a trace store, a Gyroflow .gcsv, a .csv or a blackbox log; with several traces and no --trace, the clip's motion picks one. Default: the movie's own gyro track (GoPro GPMF, CAMM).",
            valueName: "TRACE"))
    var imu: String?
    @Option(help: ArgumentHelp("Which trace of a store or log (by default, when there are several, the one whose motion matches the clip).", valueName: "ID")) var trace: Int64?
    @Option(help: ArgumentHelp("Starting profile: its axis mapping and focal length are taken as given.", valueName: "FILE")) var calibration: String?
    @Option(
        name: .customLong("axis-mapping"),
        help: ArgumentHelp(
            "IMU axes to camera axes (x right, y down, z forward) as 3 letters: letter i = the IMU axis that becomes camera axis i, lowercase inverted (XYZ: identity). Default: searched.",
            valueName: "XYZ"))
    var axisMapping: String?
    @Option(name: .customLong("focal-length"), help: ArgumentHelp("Focal length in pixels. Default: the profile's, else estimated.", valueName: "px"))
    var focalLength: Double?
    @Option(name: .customLong("search-ms"), help: ArgumentHelp("Search offsets within +-MS. Default: every offset at which the trace covers half the video.", valueName: "MS"))
    var searchMs: Double?
    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the profile (JSON).", valueName: "FILE")) var output: String
    @Flag(help: "Write the profile even below the confidence floor (0.5) or with an implausible focal length, with a warning.")
    var force = false
    @Flag(help: "No progress on stderr.") var quiet = false

    func validate() throws {
        guard FileManager.default.fileExists(atPath: video) else { throw ValidationError("\(video): no such file.") }
        if let imu, !FileManager.default.fileExists(atPath: imu) { throw ValidationError("\(imu): no such file.") }
        if let calibration, !FileManager.default.fileExists(atPath: calibration) { throw ValidationError("\(calibration): no such file.") }
        if let f = focalLength, !(f > 0 && f <= 1_000_000) { throw ValidationError("--focal-length must be a positive number of pixels, at most 1000000.") }
        if let s = searchMs, !(s > 0 && s <= 600_000) { throw ValidationError("--search-ms must be between 0 and 600000.") }
        if let a = axisMapping, !AxisMapping.isValidOrientation(a) {
            throw ValidationError("--axis-mapping must be 3 letters naming x, y and z once each (XYZ, xzY, ...), found '\(a)'.")
        }
        // The profile is written over whatever has its name: never over the movie, the trace or
        // the starting profile (-o MOVIE replaced the movie with JSON, exit 0).
        try asUsage { try OutputPath.checkPlace(output, inputs: [video] + [imu, calibration].compactMap { $0 }) }
    }

    func run() throws {
        var files = CalibrateOptions(video: video, imu: imu, output: output)
        files.trace = trace; files.calibration = calibration
        files.axisMapping = axisMapping; files.focalLength = focalLength; files.searchMs = searchMs; files.force = force
        // A stop signal cancels the job: decoding stops at the next picture (or a blocked open
        // returns), nothing is saved, exit 128 + the signal. The profile is only ever written
        // after the job, by an atomic rename, so no partial profile can carry -o's name.
        // Reading a trace from a FIFO or a stalled mount blocks in read(), which no token
        // reaches; nothing is written before the job ends, so ending the process then
        // leaves nothing behind. Its own words: that the job did not stop by itself is
        // worth knowing (and is how the tests tell this path from the token's).
        let r = try runJob(
            CalibrateJob.self, files, quiet: quiet, notice: printWarning, grace: 3, stuck: "cancelled (the job did not stop within 3 s of the signal)")
        for line in r.report { print(line) }
        print("wrote \(output)")
        for line in r.warnings { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
}
