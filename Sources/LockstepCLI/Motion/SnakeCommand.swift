import ArgumentParser
import Foundation
import Lockstep

/// The options of the video-snake effect, shared by `snake` and `composite --snake`.
struct SnakeArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "IMU trace: a trace store, a Gyroflow .gcsv, a .csv (t_ns,gx,gy,gz[,ax,ay,az]), a flight log, or a camera file with GPMF or CAMM telemetry (snake: the movie's own, when not given).",
            valueName: "TRACE"))
    var imu: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Which trace of a store (needed when it holds several).", valueName: "ID"))
    var trace: Int64?

    @Option(help: ArgumentHelp("Calibration profile (JSON, see Calibration/README.md).", valueName: "FILE"))
    var calibration: String?

    @Option(name: .customLong("offset-ms"), parsing: .unconditional, help: ArgumentHelp("IMU-to-video time offset, overriding the profile's.", valueName: "ms"))
    var offsetMs: Double?

    @Option(
        help: ArgumentHelp(
            "What moves the trail: gyro (the rotation rate: what the picture does) or accel (the accelerometer's user acceleration, VideoSnake's; needs a trace with one).", valueName: "gyro|accel"))
    var drive: SnakeDrive = .gyro

    @Option(name: .customLong("gyro-gain"), parsing: .unconditional, help: "With --drive gyro: trail acceleration per rad/s of rotation.")
    var gyroGain: Double = 1

    @Option(name: .customLong("trail-scale"), parsing: .unconditional, help: "Scale of the previous output in the trail.") var trailScale = 0.85
    @Option(name: .customLong("front-scale"), parsing: .unconditional, help: "Scale of the current frame, centred.") var frontScale = 0.25
    @Option(parsing: .unconditional, help: "Velocity kept from frame to frame.") var damping = 0.75
    @Option(name: .customLong("shift-gain"), parsing: .unconditional, help: "Trail shift per unit of velocity, times the width.") var shiftGain = 0.01
    @Flag(help: "Mirror the horizontal motion (front cameras).") var mirror = false

    @Option(help: ArgumentHelp("Write the per-frame motion pairing as CSV.", valueName: "FILE"))
    var report: String?

    func validate() throws {
        try checkTrace(trace)
        for (name, v) in [("--trail-scale", trailScale), ("--front-scale", frontScale)] where !(v > 0 && v <= 1) {
            throw ValidationError("\(name) must be above 0 and at most 1; got \(v).")
        }
        guard (0...1).contains(damping) else { throw ValidationError("--damping must be between 0 and 1; got \(damping).") }
        guard (-1000...1000).contains(gyroGain) else { throw ValidationError("--gyro-gain must be between -1000 and 1000; got \(gyroGain).") }
        guard (-1...1).contains(shiftGain) else { throw ValidationError("--shift-gain must be between -1 and 1; got \(shiftGain).") }
        // An hour either way: far past any clock offset between a camera and its IMU.
        if let offsetMs, !(-3_600_000...3_600_000).contains(offsetMs) {
            throw ValidationError("--offset-ms must be between -3600000 and 3600000; got \(offsetMs).")
        }
        if let calibration, !FileManager.default.fileExists(atPath: calibration) { throw ValidationError("\(calibration): no such file.") }
        if let imu, !FileManager.default.fileExists(atPath: imu) { throw ValidationError("\(imu): no such file.") }
    }

    /// The files the effect reads besides the movies: the output must not replace them.
    var readFiles: [String] { [imu, calibration].compactMap { $0 } }

    /// The report is written over whatever has its name: never over a movie, the output, the
    /// trace or the profile (`--report TRACE` replaced the trace with the CSV report), and not
    /// from a scale-out, whose every segment task would write its own frames' rows over the
    /// same file. `snake` and `composite --snake` alike.
    func checkReport(inputs: [String], output: String, scaledOut: Bool) throws {
        guard let report else { return }
        if scaledOut { throw ValidationError("--report cannot be combined with --segments: each segment task would write its own frames' report over the same file.") }
        let real = { (p: String) in URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path }
        if real(report) == real(output) { throw ValidationError("--report \(report) is the output movie; write the report somewhere else.") }
        try asUsage("--report") {
            try OutputPath.checkPlace(report, inputs: inputs + [output] + readFiles)
        }
    }

    /// `video`: the movie whose clock the snake follows (the first input).
    /// `ownTrace`: with no --imu, the movie itself is the trace (a GoPro's GPMF, a phone's CAMM).
    func options(video: String, ownTrace: Bool = false) throws -> SnakeOptions {
        guard imu != nil || ownTrace else { throw ValidationError("--imu TRACE is needed for the snake effect.") }
        var files = SnakeFiles(video: video, imu: imu)
        files.trace = trace; files.calibration = calibration; files.offsetMs = offsetMs
        files.drive = drive; files.gyroGain = gyroGain
        files.parameters.trailScale = trailScale; files.parameters.frontScale = frontScale
        files.parameters.damping = damping; files.parameters.shiftGain = shiftGain; files.parameters.mirror = mirror
        files.reportPath = report
        // Only the drive that does not fit the trace is a usage error; a trace that cannot be
        // followed is the job's failure (exit 1).
        do {
            return try SnakeOptions.load(files)
        } catch let e as SnakeDriveError {
            throw ValidationError(e.description)
        }
    }
}

extension SnakeFollow: ExpressibleByArgument {}

struct SnakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snake",
        abstract: "Apple's VideoSnake effect driven by an IMU trace: the previous output shrinks into a trail that moves with the device.")

    @Argument(help: "The movie.") var input: String
    @OptionGroup var snake: SnakeArguments
    @OptionGroup(title: "Filters (before the effect)") var filters: FilterArguments
    @OptionGroup(title: "Output (the same in every command that writes a movie)") var out: OutputArguments
    @Flag(help: "No progress on stderr.") var quiet = false
    @Option(help: ArgumentHelp("What the trail follows: auto (the picture's motion when the movie says the camera stabilised it, else the gyro), gyro, or picture.", valueName: "auto|gyro|picture"))
    var follow: SnakeFollow = .auto
    @OptionGroup(title: "Timeline and cuts") var timeline: TimelineArguments
    @OptionGroup(title: "Segment renders") var segment: SegmentArguments
    @OptionGroup(title: "Scale-out (segments on a Slurm job array, or Kubernetes manifests)") var scaleOut: ScaleOutArguments
    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v, .mov or .mkv).", valueName: "OUT")) var output: String

    func validate() throws {
        // The same rules as composite's, from the library: crf, preset, the input, the output.
        try asUsage {
            var options = CompositeOptions(inputs: [input], output: output, blend: .single)
            out.apply(to: &options)
            segment.apply(to: &options)
            timeline.apply(to: &options)
            // The snake is drawn on the SDR working signal: said here, before the trace is read.
            if let hdr = out.hdr { throw ValidationError("snake cannot honour --hdr \(hdr.rawValue): the snake draws on the SDR working signal (8-bit BT.709).") }
            try options.check()

            try OutputPath.checkInput(input)
            try OutputPath.check(output, inputs: [input] + snake.readFiles)
        }
        try out.check(output: output, segments: scaleOut.requested)
        try snake.checkReport(inputs: [input], output: output, scaledOut: scaleOut.requested)
    }

    func run() throws {
        var options = CompositeOptions(inputs: [input], output: output, blend: .single)
        let (snakeOptions, note) = try SnakeFollowPicture.apply(try snake.options(video: input, ownTrace: true), movie: input, follow: follow)
        options.snake = snakeOptions
        options.filter = try filters.schedule()
        out.apply(to: &options)
        segment.apply(to: &options)
        timeline.apply(to: &options)
        if scaleOut.requested {
            if let note { printNote(note) }  // the submission writes no movie: said before its plan
            return try scaleOut.run(options, command: "snake", gopGiven: segment.gop != nil)
        }
        // What the trail follows: told with the job's own notes, once it has written the output.
        try runComposite(options, quiet: quiet, earlier: note.map { [$0] } ?? [])
    }
}

/// Runs a composite job with progress, cancellation and the closing summary.
func runComposite(_ options: CompositeOptions, quiet: Bool, earlier: [String] = []) throws {
    let result = try runOutputJob(CompositeJob.self, options, quiet: quiet, earlier: earlier)
    for w in result.warnings { printWarning(w) }
    let seconds = (result.frameRate.inverse * result.frames).seconds
    let audioNote = result.audioSamples.map { String(format: ", audio %.3f s", Double($0) / 48_000) } ?? ", no audio"
    print("wrote \(options.output): \(result.frames) frames, \(result.canvas) at \(result.frameRate) fps, \(String(format: "%.3f", seconds)) s\(audioNote)")
    if let keying = result.keying { print(keying) }
    if let l = result.loudness {
        print(
            l.mixLUFS.isFinite
                ? String(
                    format: "loudness: the mix measured %.1f LUFS; gain %+.1f dB for %.1f LUFS; written %.1f LUFS (EBU R128, libebur128)",
                    l.mixLUFS, l.gainDB, l.target, l.writtenLUFS)
                : "loudness: the mix is silent (under R128's -70 LUFS gate); no gain applied")
    }
    if let range = options.frames {
        // What starting part way in cost: pictures decoded per input, also those before frame A.
        print("frames \(range): pictures decoded per input: \(result.picturesDecoded.map(String.init).joined(separator: ", "))")
        if let d = result.snake?.preRollFrames {
            print("snake: \(d) frames rendered before frame \(range.start) to rebuild the trail exactly")
        }
    }
    if let s = result.snake {
        print(
            "motion: \(s.framesWithMotion) frames paired, \(s.framesWithoutMotion) without"
                + (s.measuredOffsetMs.map {
                    s.measuredAgainstRecords
                        ? String(format: "; the picture's motion says it runs %.1f ms off its recorded orientation (IORI * CORI; the trail follows those, not the gyro)", $0)
                        : String(format: "; the picture's motion says the offset is %.1f ms", $0)
                } ?? ""))
        for w in s.warnings { printWarning(w) }
    }
}
