import Foundation
import Glibc
import Motion
import XCTest

@testable import IIO

/// The replay server's limits, in process, on loopback: the connection cap, the idle timeout,
/// backpressure against a client that sends without reading, pacing that cannot overflow.
final class ReplayServerLimitsTests: IIOTestCase {
    func server(_ options: IIODServer.Options, fixture name: String = "still.gcsv") throws -> IIODServer {
        let (info, samples, accel) = try Self.load(name)
        let server = try IIODServer(device: try ReplayDevice(info: info, samples: samples, hasAccel: accel), options: options)
        server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    func testConnectionsOverTheCapAreToldBusyAndClosedAndCounted() throws {
        let s = try server(.init(port: 0, speed: 0, maxConnections: 3))
        let held = try (0..<3).map { _ in try RawClient(port: s.port) }
        for c in held { XCTAssertEqual(c.ask("VERSION\r\n", lines: 1), ["0.24.v0.24  "]) }
        let extra = try RawClient(port: s.port)
        XCTAssertEqual(extra.readAll(), "-16\n", "EBUSY, then the end of the stream")
        let info = try Self.run(["iio_info", "-u", "ip:127.0.0.1:\(s.port)"], timeout: 10)
        XCTAssertNotEqual(info.status, 0)
        XCTAssertTrue((String(decoding: info.stdout, as: UTF8.self) + info.stderr).contains("Device or resource busy"), info.stderr)
        XCTAssertEqual(s.statistics.refused, 2)
        // One leaves: the next is served.
        held[0].close()
        try waitUntil { s.statistics.open == 2 }
        let ok = try Self.run(["iio_info", "-u", "ip:127.0.0.1:\(s.port)"], timeout: 10)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(s.statistics.accepted, 4)
    }

    func testAnIdleConnectionIsClosedButOneWaitingForSamplesIsNot() throws {
        // Idle for 2 s: the waiting client sends OPEN and READBUF in one write, so it is never
        // idle however late the test thread runs, and the timeouts are loose for a loaded machine.
        let s = try server(.init(port: 0, speed: 1e-3, idleTimeout: 2))
        let idle = try RawClient(port: s.port, timeout: 30)
        let waiting = try RawClient(port: s.port, timeout: 30)
        // At a thousandth of real time the second sample is due 5 s after the first: a READBUF
        // of two sends the first and waits on.
        let started = Date()
        waiting.send("OPEN iio:device0 2 00000001\r\nREADBUF iio:device0 4\r\n")
        XCTAssertEqual(waiting.read(bytes: 2), Array("0\n".utf8), "OPEN's answer")
        XCTAssertEqual(idle.readAll(), "", "closed by the server without a word")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(s.statistics.idleClosed, 1)
        let head = Array("2\n00000001\n".utf8)
        XCTAssertEqual(Array(waiting.read(bytes: head.count + 2).prefix(head.count)), head, "the first sample, after a second")
        XCTAssertEqual(s.statistics.idleClosed, 1, "the client waiting for its READBUF was left alone")
    }

    func testAClientThatSendsWithoutReadingIsNotBufferedWithoutBound() throws {
        let s = try server(.init(port: 0, speed: 0))
        let c = try RawClient(port: s.port)
        // PRINT answers are ~3 KB each: send requests until the kernel refuses more (the server
        // stopped reading because its answers are not being read), at most 64 MB.
        let request = Array(String(repeating: "PRINT\r\n", count: 1000).utf8)
        var sent = 0
        c.setNonBlocking(true)
        while sent < 64 << 20 {
            let n = request.withUnsafeBytes { Glibc.send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { XCTAssertTrue(errno == EAGAIN || errno == EWOULDBLOCK); break }
            sent += n
        }
        XCTAssertLessThan(sent, 64 << 20, "the server stopped reading")
        // The answers that did come are whole, and a second client is served meanwhile.
        let info = try Self.run(["iio_info", "-u", "ip:127.0.0.1:\(s.port)"], timeout: 10)
        XCTAssertEqual(info.status, 0, info.stderr)
        c.setNonBlocking(false)
        let answer = c.read(bytes: 64 * 1024)
        XCTAssertTrue(String(decoding: answer.prefix(10), as: UTF8.self).hasPrefix("\(s.device.xml.utf8.count)\n<?xml"))
    }

    func testATinySpeedDoesNotTrapAndTheServerServesOn() throws {
        let s = try server(.init(port: 0, speed: 1e-300))
        let c = try RawClient(port: s.port)
        XCTAssertEqual(c.ask("OPEN iio:device0 2 00000001\r\n", lines: 1), ["0"])
        c.send("READBUF iio:device0 2\r\n")
        XCTAssertEqual(c.read(bytes: "2\n00000001\n".utf8.count + 2).count, 13, "sample 0 is due at once")
        c.send("READBUF iio:device0 2\r\n")  // sample 1 is due in 5e305 ns
        let info = try Self.run(["iio_info", "-u", "ip:127.0.0.1:\(s.port)"], timeout: 10)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertThrowsError(try IIODServer(device: s.device, options: .init(port: 0, speed: .infinity))) {
            XCTAssertEqual("\($0)", "the replay speed must be 0 or a positive finite factor; got inf")
        }
    }

    func testWritebufIsRefusedAndTheConnectionGoesOn() throws {
        let s = try server(.init(port: 0, speed: 0))
        let c = try RawClient(port: s.port)
        XCTAssertEqual(c.ask("WRITEBUF iio:device0 16\r\nWRITE iio:device0 sampling_frequency 4\r\n200\u{0}TIMEOUT 5\r\n", lines: 3), ["-22", "4", "0"])
    }

    func testIPv6Loopback() throws {
        let s: IIODServer
        do { s = try server(.init(host: "::1", port: 0, speed: 0)) } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        let info = try Self.run(["iio_info", "-u", "ip:[::1]:\(s.port)"], timeout: 10)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(String(decoding: info.stdout, as: UTF8.self).contains("lockstep_fixture"))
        XCTAssertThrowsError(try IIODServer(device: s.device, options: .init(host: "gyro.local", port: 0))) {
            XCTAssertEqual("\($0)", "gyro.local is not an IPv4 or IPv6 address")
        }
    }

    func waitUntil(_ seconds: Double = 5, _ condition: () -> Bool) throws {
        let deadline = Date() + seconds
        while !condition() {
            // A condition that never holds is the server misbehaving: a failure, not a skip.
            if Date() > deadline { XCTFail("the condition did not hold within \(seconds) s"); return }
            usleep(10_000)
        }
    }
}

/// A blocking loopback TCP client for tests, with a 5 s receive timeout.
final class RawClient {
    let fd: Int32
    init(port: UInt16, host: String = "127.0.0.1", timeout: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET); a.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &a.sin_addr)
        let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { let e = errno; Glibc.close(fd); throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    deinit { Glibc.close(fd) }
    private var closed = false
    func close() { if !closed { shutdown(fd, Int32(SHUT_RDWR)); closed = true } }

    func send(_ text: String) { send(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    func setNonBlocking(_ on: Bool) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Up to `count` bytes (fewer if the stream ends or the timeout passes).
    func read(bytes count: Int) -> [UInt8] {
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 65536)
        while got.count < count {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, count - got.count), 0) }
            if n <= 0 { break }
            got += buf[0..<n]
        }
        return got
    }

    /// Everything until the server closes (or the timeout passes).
    func readAll() -> String { String(decoding: read(bytes: .max), as: UTF8.self) }

    /// Sends `text` and returns the first `lines` lines of the answer.
    func ask(_ text: String, lines: Int) -> [String] {
        send(text)
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 65536)
        while got.filter({ $0 == 10 }).count < lines {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += buf[0..<n]
        }
        return String(decoding: got, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).prefix(lines).map(String.init)
    }
}
