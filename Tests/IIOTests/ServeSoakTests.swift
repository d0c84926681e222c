import Foundation
import Glibc
import TestSupport
import XCTest

/// `lockstep imu serve` as a child process, abused on loopback the way issue 9 found it broken:
/// descriptors run out (EMFILE), 1,000 connections come and go, 200 sit idle, garbage and endless
/// lines arrive; `iio_info` must work after each. Each test takes a few seconds.
final class ServeSoakTests: IIOTestCase {
    /// A running `lockstep imu serve` and what /proc says about it.
    struct Server {
        let process: Process
        let port: UInt16
        let stderr: FileHandle
        /// SIGINT, then what the server said on its way out.
        func stop() -> String {
            kill(pid, SIGINT)
            let text = String(decoding: stderr.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        var pid: Int32 { process.processIdentifier }
        func status(_ field: String) -> Int? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
            let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            return line.flatMap { Int($0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) }
        }
        var threads: Int? { status("Threads") }
        var residentKB: Int? { status("VmRSS") }
        var openFiles: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1 }
        /// Sockets open, the listener included (other descriptors, like the signal sources
        /// libdispatch opens in the background, do not count).
        var openSockets: Int {
            let dir = "/proc/\(pid)/fd"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return names.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0)) ?? "").hasPrefix("socket:") }.count
        }
    }

    /// Starts the server on a free port, under `prlimit --nofile=N` when `files` is given.
    func startServer(_ extra: [String] = [], files: Int? = nil, fixture: String = "shake.gcsv") throws -> Server {
        let (p, port) = try serveProcess(fixture, ["--speed", "0"] + extra, wrapper: files.map { ["/usr/bin/prlimit", "--nofile=\($0)"] } ?? [])
        return Server(process: p.process, port: port, stderr: p.stderr)
    }

    /// iio_info succeeds within `seconds` (tried again until then: one attempt's own timeout
    /// can pass on a loaded machine; a server that refuses keeps failing until the deadline).
    func assertIioInfo(_ server: Server, within seconds: Double = 30, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date() + seconds
        var last: (status: Int32, stdout: Data, stderr: String)
        repeat {
            last = try Self.run(["iio_info", "-u", "ip:127.0.0.1:\(server.port)"], timeout: 30)
            if last.status == 0 && String(decoding: last.stdout, as: UTF8.self).contains("iio:device0: lockstep_fixture") { return }
            usleep(100_000)
        } while Date() < deadline
        XCTFail("iio_info failed \(what): status \(last.status), \(last.stderr)", file: file, line: line)
    }

    func testRunningOutOfDescriptorsOnlyPausesAccepting() throws {
        // 64 descriptors in all: the server's own (event loop, standard streams, libraries) leave
        // it room for about 50 connections. 100 clients: accept() fails with EMFILE for the rest.
        let server = try startServer(files: 64)
        let sockets = server.openSockets  // the listener, and any the test process let it inherit
        try assertIioInfo(server, "before")
        for wave in 1...2 {
            var clients = try (0..<100).map { _ in try RawClient(port: server.port, timeout: 20) }
            XCTAssertEqual(clients[0].ask("VERSION\r\n", lines: 1), ["0.24.v0.24  "], "wave \(wave): early clients are served")
            XCTAssertTrue(server.process.isRunning)
            let deadline = Date() + 10
            while server.openFiles < 64 && Date() < deadline { usleep(20_000) }
            XCTAssertEqual(server.openFiles, 64, "wave \(wave): the server used every descriptor it may have")
            usleep(300_000)  // accept() fails with EMFILE meanwhile
            clients.removeAll()  // closes them: the descriptors come back
            try assertIioInfo(server, "after wave \(wave) of 100 connections under a 64-descriptor limit")
        }
        let deadline = Date() + 15
        while server.openSockets > sockets && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(server.openSockets, sockets, "every connection's socket was closed")
        // Its own count of accept() failures: EMFILE did happen, and did not stop it.
        let said = server.stop()
        let errors = said.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertGreaterThan(errors ?? 0, 0, said)
        XCTAssertEqual(server.process.terminationStatus, 0, said)
    }

    func testAThousandConnectionsOpenedAndDropped() throws {
        let server = try startServer()
        let sockets = server.openSockets  // the listener, and any the test process let it inherit
        for i in 0..<1000 {
            let c = try RawClient(port: server.port, timeout: 20)
            switch i % 4 {
            case 0: break  // connect, say nothing, leave
            case 1: c.send("PRINT\r\n")  // ask, and leave without reading the answer
            case 2: c.send("READ iio:device0 INPUT anglv")  // leave mid-line
            default:  // leave with a reset
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            }
            if i % 250 == 249 { try assertIioInfo(server, "after \(i + 1) connections") }
        }
        let deadline = Date() + 15
        while server.openSockets > sockets && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(server.openSockets, sockets, "every connection's socket was closed")
        XCTAssertLessThan(server.threads ?? 999, 20)
    }

    func testTwoHundredIdleConnectionsHoldNoThreadAndAreClosedByTheIdleTimeout() throws {
        let server = try startServer(["--idle-timeout", "2"])
        let threadsBefore = server.threads ?? 0
        let clients = try (0..<200).map { _ in try RawClient(port: server.port, timeout: 20) }
        XCTAssertEqual(clients[199].ask("TIMEOUT 100\r\n", lines: 1), ["0"], "the 200th is served")
        XCTAssertLessThanOrEqual(server.threads ?? 999, threadsBefore + 2, "no thread per connection")
        try assertIioInfo(server, "with 200 idle connections open")
        let started = Date()
        let closed = clients.filter { $0.readToEnd().closed }.count
        XCTAssertEqual(closed, 200, "the server closed every idle connection")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "closed by the 2 s idle timeout, not left open (loose for a loaded machine)")
        try assertIioInfo(server, "after the idle connections were closed")
    }

    func testGarbageAndEndlessLinesGetErrorsAndBoundedMemory() throws {
        let server = try startServer()
        let rssBefore = server.residentKB ?? 0
        // Random bytes, then a command: every line of garbage gets an error, the command its answer.
        var rng = SplitMix64(seed: 1227)
        let garbage = Array((0..<(256 << 10)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) + Array("\r\nVERSION\r\n".utf8)
        let a = try RawClient(port: server.port)
        a.send(garbage)
        let answers = a.read(untilSuffix: "0.24.v0.24  \n")
        XCTAssertTrue(answers.hasSuffix("0.24.v0.24  \n"), String(answers.suffix(80)))
        XCTAssertTrue(answers.split(separator: "\n").dropLast().allSatisfy { $0 == "-22" || $0 == "-19" || $0 == "-2" || $0 == "-9" }, String(answers.prefix(200)))
        // 32 MiB without a newline: dropped as it arrives.
        let b = try RawClient(port: server.port)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<32 { b.send(chunk) }
        XCTAssertEqual(b.ask("\r\nVERSION\r\n", lines: 2), ["-22", "0.24.v0.24  "])
        XCTAssertLessThan((server.residentKB ?? 0) - rssBefore, 16 << 10, "the long line was not kept")
        // Control characters and a NUL inside a command; a WRITE announcing 100 GB.
        let c = try RawClient(port: server.port)
        XCTAssertEqual(
            c.ask("READ iio:device0\u{0} sampling_frequency\r\n\u{1B}[2J\u{7}\r\nWRITE iio:device0 sampling_frequency 100000000000\r\n", lines: 3),
            ["-19", "-22", "-22"], "a device name holding a NUL is no device; the escape sequence is no command")
        XCTAssertTrue(c.readToEnd().closed, "after a WRITE it cannot skip, the server hangs up")
        try assertIioInfo(server, "after garbage")
    }
}

extension RawClient {
    /// Reads until the stream ends (closed: true) or the receive timeout passes (closed: false).
    func readToEnd() -> (text: String, closed: Bool) {
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return (String(decoding: got, as: UTF8.self), true) }
            if n < 0 { return (String(decoding: got, as: UTF8.self), errno == ECONNRESET) }
            got += buf[0..<n]
        }
    }

    /// Reads until what came ends with `suffix` (or the stream ends, or the timeout passes).
    func read(untilSuffix suffix: String) -> String {
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 65536)
        let want = Array(suffix.utf8)
        while !(got.count >= want.count && Array(got.suffix(want.count)) == want) {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += buf[0..<n]
        }
        return String(decoding: got, as: UTF8.self)
    }
}
