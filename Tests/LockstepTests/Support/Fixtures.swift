import Foundation

/// The bundled fixtures (scripts/make-fixtures; Fixtures/README.md says what each proves).
enum Fixtures {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    }
    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// Runs a program, reading both pipes to the end (no deadlock on large output).
enum Shell {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
    }

    /// Runs and insists on success.
    static func check(_ executable: String, _ arguments: [String]) throws -> Data {
        let r = try run(executable, arguments)
        guard r.status == 0 else { throw Failure(description: "\(executable) \(arguments.joined(separator: " ")): \(r.stderr)") }
        return r.stdout
    }
}
