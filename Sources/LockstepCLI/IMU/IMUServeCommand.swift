import ArgumentParser
import Lockstep

struct IMUServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Replay a trace as a virtual IIO gyro over libiio's network protocol (iiod, libiio 0.24).",
        discussion: """
            Each buffer a client opens replays the trace from its first sample, paced by the timestamps. \
            Connections over --max-connections are answered "busy" and closed; a connection silent for \
            --idle-timeout seconds is closed. Runs until Ctrl-C or SIGTERM.
            """)

    @Argument(help: ArgumentHelp("A trace store, or a .gcsv or .csv file.", valueName: "trace")) var path: String
    @Option(parsing: .unconditional, help: "The trace; needed when the store holds several.") var trace: Int64?
    @Option(help: ArgumentHelp("The IPv4 or IPv6 address to listen on.", valueName: "address")) var host = "127.0.0.1"
    @Option(parsing: .unconditional, help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port")) var port: Int = 30431
    @Option(parsing: .unconditional, help: ArgumentHelp("Replay speed: 2 = twice as fast (0.001 to 1000); 0 = as fast as clients read.", valueName: "factor")) var speed = 1.0
    @Flag(help: "Start again from the first sample after the last (timestamps keep increasing).") var loop = false
    @Option(parsing: .unconditional, help: ArgumentHelp("Clients served at once.", valueName: "n")) var maxConnections = 256
    @Option(parsing: .unconditional, help: ArgumentHelp("Close a connection silent for this long.", valueName: "s")) var idleTimeout = 300.0

    var options: IMUServeOptions {
        IMUServeOptions(
            path: path, trace: trace, host: host, port: port, speed: speed, loop: loop,
            maxConnections: maxConnections, idleTimeout: idleTimeout)
    }

    func validate() throws {
        try checkTrace(trace)
        if let problem = options.problem { throw ValidationError(problem.description) }
    }

    func run() throws {
        // Stopping closes every connection: seconds under load, so the grace is long.
        try runJob(IMUServeJob.self, options, notice: standardErrorLine, grace: 60, stop: { job in { job.stop(by: $0) } })
    }
}
