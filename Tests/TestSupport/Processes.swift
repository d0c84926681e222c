import Foundation

/// Outside programs run to their end: both pipes read concurrently (a child that fills one
/// while we wait on the other cannot deadlock us), optionally bounded by coreutils' `timeout`.
public enum Processes {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// `exe` is a path, or a bare name looked up on PATH (then /usr/bin, /usr/local/bin).
    /// With `timeout` (seconds) the program is killed after that long (status 124).
    public static func run(_ exe: String, _ args: [String], timeout: Int? = nil, stdin: FileHandle? = FileHandle.nullDevice)
        throws -> (status: Int32, stdout: Data, stderr: String)
    {
        let p = Process()
        if let timeout {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            p.arguments = [String(timeout), resolve(exe)] + args
        } else {
            p.executableURL = URL(fileURLWithPath: resolve(exe))
            p.arguments = args
        }
        if let stdin { p.standardInput = stdin }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let t0 = Date()
        try p.run()
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        // LOCKSTEP_TEST_PROCESS_LOG=FILE (an existing file): each outside program's seconds, name and
        // arguments, one line each, to see where a test tier's time goes (issue 28).
        if let log = ProcessInfo.processInfo.environment["LOCKSTEP_TEST_PROCESS_LOG"], let h = FileHandle(forWritingAtPath: log) {
            h.seekToEndOfFile(); h.write(Data("\(Date().timeIntervalSince(t0))\t\(exe)\t\(args.joined(separator: " "))\n".utf8)); try? h.close()
        }
        return (p.terminationStatus, outData, String(decoding: errBox.data, as: UTF8.self))
    }

    /// Runs and insists on exit status 0; returns stdout.
    @discardableResult
    public static func check(_ exe: String, _ args: [String]) throws -> Data {
        let r = try run(exe, args)
        guard r.status == 0 else {
            throw Failure(description: "\(exe) \(args.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        }
        return r.stdout
    }

    /// The built `lockstep` with `args`: status, stdout and stderr as text.
    public static func lockstep(_ args: [String], timeout: Int? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try run(Repository.binary.path, args, timeout: timeout)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// Waits until process `pid` catches `sig` (its handler is installed: the signal's bit in
    /// /proc/PID/status's SigCgt), at most `seconds`; true if it does. A test that signals a job
    /// must wait for this: a fixed sleep lets a loaded machine deliver the signal before the
    /// program has installed its handler, and the default action kills it (exit by signal).
    @discardableResult
    public static func waitUntilCatching(_ pid: Int32, _ sig: Int32, within seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
                mask & (1 << UInt64(sig - 1)) != 0
            {
                return true
            }
            usleep(10_000)
        }
        return false
    }

    /// The built `lockstep` with `args`, stopped by `sig` once `started()` is true (polled every
    /// 20 ms, at most 60 s; e.g. its temporary output is there) and its handler for `sig` is
    /// installed: its exit status and stderr. A process killed by the signal (no handler yet)
    /// has `terminationReason` .uncaughtSignal; `status` is then the signal's number.
    public static func lockstepStopped(_ args: [String], by sig: Int32, once started: () throws -> Bool) throws
        -> (reason: Process.TerminationReason, status: Int32, stderr: String)
    {
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = args
        let err = Pipe()
        p.standardError = err; p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while try !started() && Date() < deadline && p.isRunning { usleep(20_000) }
        waitUntilCatching(p.processIdentifier, sig)
        kill(p.processIdentifier, sig)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationReason, p.terminationStatus, stderr)
    }

    /// Waits until process `pid` has one of `paths` open (its /proc/PID/fd links) or one of its
    /// threads is blocked opening a FIFO (the kernel's `wait_for_partner`, in /proc's wchan),
    /// up to `seconds`; true if so. What a test waits for before it signals a job that opens
    /// an input: the job has started, however slowly the machine ran the process's start.
    public static func waitUntilOpen(_ pid: Int32, anyOf paths: [String], within seconds: Double = 60) -> Bool {
        let wanted = Set(paths.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        let files = FileManager.default
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let fds = try? files.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return false }
            for fd in fds {
                if let target = try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"), wanted.contains(target) { return true }
            }
            for task in (try? files.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
                if (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) == "wait_for_partner" { return true }
            }
            usleep(10_000)
        }
        return false
    }

    public static func resolve(_ exe: String) -> String {
        if exe.contains("/") { return exe }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for dir in path + ["/usr/bin", "/usr/local/bin"] {
            let candidate = (dir as NSString).appendingPathComponent(exe)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/" + exe
    }

    private final class DataBox: @unchecked Sendable { var data = Data() }
}
