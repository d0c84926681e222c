import Foundation
import Glibc

/// A program left running while a test talks to it (a server, a recorder), its stderr piped:
/// started, read up to its first line (the "serving ..." or "recording ..." it prints once
/// ready), signalled and waited for with a bound.
public final class BackgroundProcess: @unchecked Sendable {
    public let process: Process
    public let stderr: FileHandle
    /// What it printed up to and including its first newline (all of it if it ended first).
    public let firstLine: String
    public var pid: Int32 { process.processIdentifier }

    /// Starts `exe` with `args` and returns once it printed a line on stderr, ended, or
    /// `seconds` passed.
    public init(_ exe: String, _ args: [String], firstLineWithin seconds: Double = 30) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Processes.resolve(exe))
        process.arguments = args
        let err = Pipe()
        process.standardError = err
        stderr = err.fileHandleForReading
        try process.run()
        var text = ""
        let deadline = Date() + seconds
        // poll(2) bounds each wait: `availableData` alone blocks until the program writes, so a
        // program that printed nothing held the test past the deadline.
        var ready = pollfd(fd: stderr.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while !text.contains("\n") {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, poll(&ready, 1, Int32(min(left, 3600) * 1000)) > 0 else { break }
            let d = stderr.availableData
            if d.isEmpty { break }
            text += String(decoding: d, as: UTF8.self)
        }
        firstLine = text
    }

    /// Sends `sig`, then returns what it printed after its first line, once it has ended.
    public func signal(_ sig: Int32) -> String {
        kill(pid, sig)
        return rest()
    }

    /// Everything it prints from now until it closes stderr, then waits for it to end.
    public func rest() -> String {
        let text = String(decoding: stderr.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// Waits up to `seconds` for it to end; true if it did.
    public func waitForExit(within seconds: Double) -> Bool {
        let deadline = Date() + seconds
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    /// SIGKILL if still running, then reaps it: for tear-down.
    public func end() {
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }
}
