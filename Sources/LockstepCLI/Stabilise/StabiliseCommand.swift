import ArgumentParser
import Foundation
import Lockstep

extension SmoothingMethod: ExpressibleByArgument {}
extension ZoomMode: ExpressibleByArgument {}

/// `lockstep stabilise INPUT -o OUTPUT`: the movie steadied from its gyro.
struct StabiliseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stabilise",
        abstract: "Steady a movie from its gyro: smoothed camera path, rolling shutter and lens corrected, cropped to hide the borders.",
        discussion: """
            The gyro is the movie's own (GoPro GPMF, CAMM) unless --imu names a trace; the offset, \
            drift, axes and bias are --calibration's, else `calibrate` runs first and its refusals \
            stand. A GoPro that stabilised its picture and records the image orientation (CORI and \
            IORI) is steadied from those records; one that records no image orientation is refused. \
            The path is smoothed and the zoom planned over the whole clip, and each frame is warped \
            with the motion of its own source time, so --from/--to and --frames A:B give the frames \
            of the uncut output over their span.
            """)

    @Argument(help: "The movie.") var input: String
    @OptionGroup var encoding: EncodeArguments
    var output: String { encoding.output }
    @OptionGroup(title: "Timeline and cuts") var timeline: TimelineArguments
    @OptionGroup(title: "Segment renders") var segment: SegmentArguments

    @Option(help: ArgumentHelp("IMU trace: a trace store, a Gyroflow .gcsv, a .csv, a flight log, or a camera file (default: the movie's own telemetry).", valueName: "LOG"))
    var imu: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Which trace of a store (needed when it holds several).", valueName: "ID")) var trace: Int64?
    @Option(help: ArgumentHelp("Calibration profile (JSON); without one, calibrate runs first.", valueName: "PROFILE")) var calibration: String?
    @Option(help: ArgumentHelp("Gyroflow lens profile (JSON), scaled to the movie's size (default: the calibration's focal length and k1).", valueName: "PROFILE.json"))
    var lens: String?
    @Option(help: ArgumentHelp("default (follows pans, removes shake), plain, fixed (a tripod) or none.", valueName: "default|plain|fixed|none"))
    var smoothing: SmoothingMethod = .default
    @Option(parsing: .unconditional, help: ArgumentHelp("The smoothing's time constant at rest, seconds (0.01 to 10).", valueName: "SECONDS")) var smoothness = 0.5
    // ArgumentParser has no option whose value may be left out: `--horizon-lock` alone levels the
    // whole roll, `--horizon-lock-amount P` a part of it.
    @Flag(name: .customLong("horizon-lock"), help: "Level the horizon to gravity (needs an accelerometer in the trace).")
    var horizonLock = false
    @Option(name: .customLong("horizon-lock-amount"), parsing: .unconditional, help: ArgumentHelp("How much of the roll --horizon-lock takes out, percent (implies it).", valueName: "PERCENT"))
    var horizonLockAmount: Double?
    @Option(name: .customLong("rolling-shutter"), parsing: .unconditional, help: ArgumentHelp("Rolling shutter readout, ms (over the lens profile's and the calibration's).", valueName: "MS"))
    var rollingShutter: Double?
    @Option(help: ArgumentHelp("static (one zoom), dynamic (smoothed over time) or none.", valueName: "static|dynamic|none")) var zoom: ZoomMode = .static
    @Option(name: .customLong("max-zoom"), parsing: .unconditional, help: ArgumentHelp("The largest zoom (1 to 4); frames that need more show their border.", valueName: "F"))
    var maxZoom = 1.5
    @Option(name: .customLong("export-path"), help: ArgumentHelp("Write the camera's and the smoothed orientation per frame (quaternions w,x,y,z) as CSV.", valueName: "CSV"))
    var exportPath: String?

    @Flag(help: "No progress on stderr.") var quiet = false

    var stabiliseOptions: StabiliseOptions {
        var o = StabiliseOptions()
        o.imu = imu; o.trace = trace; o.calibration = calibration; o.lens = lens
        o.settings.smoothing = smoothing
        o.settings.smoothness = smoothness
        if horizonLock || horizonLockAmount != nil { o.settings.horizonLock = (horizonLockAmount ?? 100) / 100 }
        if let rollingShutter { o.settings.shutter = RollingShutter(readout: rollingShutter / 1000) }
        o.rollingShutterMs = rollingShutter
        o.settings.zoom = zoom
        o.settings.maxZoom = maxZoom
        o.exportPath = exportPath
        return o
    }

    func validate() throws {
        try checkTrace(trace)
        guard (0.01...10).contains(smoothness) else { throw ValidationError("--smoothness must be between 0.01 and 10 seconds; got \(smoothness).") }
        if let p = horizonLockAmount, !(0...100).contains(p) { throw ValidationError("--horizon-lock-amount must be a percentage from 0 to 100; got \(p).") }
        if let r = rollingShutter, !(0...100).contains(r) { throw ValidationError("--rolling-shutter must be between 0 and 100 ms; got \(r).") }
        guard (1...4).contains(maxZoom) else { throw ValidationError("--max-zoom must be between 1 and 4; got \(maxZoom).") }
        for (name, path) in [("--imu", imu), ("--calibration", calibration), ("--lens", lens)] {
            if let path, !FileManager.default.fileExists(atPath: path) { throw ValidationError("\(name) \(path): no such file.") }
        }
        try encoding.out.check(output: output)
        try asUsage {
            try options.check()
            try OutputPath.checkInput(input)
            try OutputPath.check(output, inputs: [input] + stabiliseOptions.readFiles)
            if let exportPath {
                let real = { (p: String) in URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path }
                if real(exportPath) == real(output) { throw StabiliseError.exportPathIsOutput(exportPath) }
                try OutputPath.checkPlace(exportPath, inputs: [input, output] + stabiliseOptions.readFiles)
            }
        }
    }

    /// The composite options of this command (one input, no blend, stabilised).
    var options: CompositeOptions {
        var o = CompositeOptions.stabilise(input: input, output: output, options: stabiliseOptions)
        encoding.out.apply(to: &o)
        timeline.apply(to: &o)
        segment.apply(to: &o)
        return o
    }

    func run() throws {
        try runComposite(options, quiet: quiet)
    }
}
