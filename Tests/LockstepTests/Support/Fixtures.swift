import Foundation

/// The bundled fixtures (made by scripts/make-fixtures; Fixtures/README.md says what each proves).
enum Fixtures {
    /// <package root>/Fixtures, found from this file's own path (Tests/LockstepTests/Support/).
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    }
    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// Runs a program and collects both of its pipes to the end, concurrently (a child that fills
/// one pipe while we wait on the other cannot deadlock us).
struct Shell {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `exe` is a path, or a bare name looked up on PATH (then /usr/bin, /usr/local/bin).
    static func run(_ exe: String, _ args: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: resolve(exe))
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
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
        return (p.terminationStatus, outData, String(decoding: errBox.data, as: UTF8.self))
    }

    /// Runs and insists on exit status 0; returns stdout.
    @discardableResult
    static func check(_ exe: String, _ args: [String]) throws -> Data {
        let r = try run(exe, args)
        guard r.status == 0 else {
            throw Failure(description: "\(exe) \(args.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        }
        return r.stdout
    }

    static func resolve(_ exe: String) -> String {
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
