import Foundation
import Glibc
import Motion
import NIOCore
import XCTest

@testable import IIO

/// The replay server as libiio's own tools see it (iio_info, iio_attr, iio_readdev from
/// libiio-utils), and as a raw socket sending it garbage.
final class ReplayServerClientTests: IIOTestCase {
    func testIioInfoListsTheDeviceChannelsAndAttributes() throws {
        let (server, _, _) = try serve("shake.gcsv")
        let r = try Self.run(["iio_info", "-u", "ip:127.0.0.1:\(server.port)"])
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(out.contains("iio:device0: lockstep_fixture (buffer capable)"), out)
        XCTAssertTrue(out.contains("7 channels found:"), out)
        for c in ["anglvel_x", "anglvel_y", "anglvel_z", "accel_x", "accel_y", "accel_z"] {
            XCTAssertTrue(out.contains("\(c):  (input, index: "), c)
        }
        XCTAssertTrue(out.contains("timestamp:  (input, index: 6, format: le:S64/64>>0)"), out)
        XCTAssertTrue(out.contains("attr  1: scale value: 0.001065264"), out)
        XCTAssertTrue(out.contains("current_timestamp_clock value: monotonic"), out)
        XCTAssertTrue(out.contains("sampling_frequency value: 200"), out)
        XCTAssertTrue(out.contains("No trigger on this device"), out)
    }

    func testIioAttrReadsScaleAndRate() throws {
        let (server, device, _) = try serve("pan.csv")
        let uri = "ip:127.0.0.1:\(server.port)"
        let scale = try Self.run(["iio_attr", "-u", uri, "-c", "pan", "anglvel_x", "scale"])
        XCTAssertEqual(scale.status, 0, scale.stderr)
        XCTAssertEqual(String(decoding: scale.stdout, as: UTF8.self), "\(device.channels[0].scale!)\n")
        XCTAssertEqual(device.channels[0].scale, ReplayDevice.defaultGyroScale, "a CSV trace has no scale of its own")
        let rate = try Self.run(["iio_attr", "-u", uri, "-d", "pan", "sampling_frequency"])
        XCTAssertEqual(String(decoding: rate.stdout, as: UTF8.self), "200\n")
        let wrong = try Self.run(["iio_attr", "-u", uri, "-d", "pan", "sampling_frequency", "100"])
        XCTAssertEqual(wrong.status, 1)
        let said = String(decoding: wrong.stdout, as: UTF8.self) + wrong.stderr  // iio_attr prints its ERROR line on stdout
        XCTAssertTrue(said.contains("Invalid argument (22) while writing 'sampling_frequency' with '100'"), said)
        let same = try Self.run(["iio_attr", "-u", uri, "-d", "pan", "sampling_frequency", "200"])
        XCTAssertEqual(same.status, 0, "the trace's own rate is accepted")
    }

    /// Decodes iio_readdev's output (all channels: 6 x s16, 4 bytes padding, s64).
    func decode(_ data: Data, gyroScale: Double, accelScale: Double) -> [IMUReading] {
        let bytes = [UInt8](data)
        func s16(_ i: Int) -> Double { Double(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)) }
        return stride(from: 0, to: bytes.count - 23, by: 24).map { o in
            let t = bytes[o + 16..<o + 24].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
            return IMUReading(
                t: t, gyro: SIMD3(s16(o) * gyroScale, s16(o + 2) * gyroScale, s16(o + 4) * gyroScale),
                accel: SIMD3(s16(o + 6) * accelScale, s16(o + 8) * accelScale, s16(o + 10) * accelScale))
        }
    }

    func testIioReaddevReturnsTheTracesSamples() throws {
        let (server, device, samples) = try serve("shake.gcsv")
        let r = try Self.run(["iio_readdev", "-u", "ip:127.0.0.1:\(server.port)", "-b", "64", "-s", "450", "lockstep_fixture"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.count, 450 * 24)
        let got = decode(r.stdout, gyroScale: device.channels[0].scale!, accelScale: device.channels[3].scale!)
        // 450 samples run across the 100 ms gap at 1.5 s: timestamps show it, exactly.
        assertSameTrace(got, Array(samples.prefix(450)), gyroScale: device.channels[0].scale!, accelScale: device.channels[3].scale!)
    }

    func testPacedReplayTakesTheTracesTime() throws {
        let (server, _, _) = try serve("still.gcsv", speed: 2)
        let start = Date()
        let r = try Self.run(["iio_readdev", "-u", "ip:127.0.0.1:\(server.port)", "-b", "50", "-s", "200", "lockstep_fixture", "anglvel_z"])
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.count, 200 * 2, "one s16 channel")
        // 200 samples at 200 Hz played twice as fast: the last is due 199 * 5 ms / 2 = 0.5 s after opening.
        XCTAssertGreaterThan(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 5)
    }

    func testSeveralClientsAtOnce() throws {
        let (server, _, samples) = try serve("pan.csv", speed: 4)
        let group = DispatchGroup()
        let outputs = Locked([Data]())
        let port = server.port
        for _ in 0..<3 {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                let r = try? Self.run(["iio_readdev", "-u", "ip:127.0.0.1:\(port)", "-b", "40", "-s", "400", "pan", "timestamp"])
                outputs.update { $0.append(r?.stdout ?? Data()) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(outputs.value.count, 3)
        let want = samples.prefix(400).map(\.t)
        for o in outputs.value {
            let bytes = [UInt8](o)
            let times = stride(from: 0, to: bytes.count, by: 8).map { i in bytes[i..<i + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) } }
            XCTAssertEqual(times, Array(want), "each client gets the whole trace from its start")
        }
    }

    // MARK: a raw client

    func connect(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET); a.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr)
        let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(ok, 0)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        addTeardownBlock { close(fd) }
        return fd
    }

    func send(_ fd: Int32, _ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }

    /// Reads until `count` lines have arrived (or the peer stops).
    func lines(_ fd: Int32, _ count: Int) -> [String] {
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 65536)
        while got.filter({ $0 == 10 }).count < count {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += buf[0..<n]
        }
        return String(decoding: got, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).prefix(count).map(String.init)
    }

    func testUnknownBinaryAndMalformedCommandsGetEINVAL() throws {
        let (server, _, _) = try serve("still.gcsv")
        let fd = try connect(server.port)
        send(
            fd,
            Array(
                "BINARY\r\nFROB 1 2\r\nREADBUF iio:device0 16\r\nREAD iio:device0 nothing\r\nREAD iio:device9 sampling_frequency\r\nOPEN iio:device0 4 00000100\r\nGETTRIG iio:device0\r\n\r\nVERSION\r\n"
                    .utf8))
        XCTAssertEqual(lines(fd, 8), ["-22", "-22", "-9", "-2", "-19", "-22", "-2", "0.24.v0.24  "])
    }

    func testAnOversizedLineIsRefusedAndTheConnectionLivesOn() throws {
        let (server, _, _) = try serve("still.gcsv")
        let fd = try connect(server.port)
        // 1 MiB without a newline, then a newline, then a good command: one -22, then the answer.
        let junk = [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20)
        send(fd, junk); send(fd, Array("\r\nTIMEOUT 100\r\n".utf8))
        XCTAssertEqual(lines(fd, 2), ["-22", "0"])
        // A WRITE announcing more than an attribute could hold is refused and the connection closed.
        send(fd, Array("WRITE iio:device0 sampling_frequency 99999999999\r\n".utf8))
        XCTAssertEqual(lines(fd, 2), ["-22", ""])
    }

    func testReadbufAnswersInExactChunksWithTheMask() throws {
        let (server, device, _) = try serve("still.gcsv")
        let fd = try connect(server.port)
        send(fd, Array("OPEN iio:device0 4 00000005\r\nREADBUF iio:device0 12\r\n".utf8))
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 4096)
        let want = "0\n12\n00000005\n".utf8.count + 12
        while got.count < want {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += buf[0..<n]
        }
        let header = "0\n12\n00000005\n"
        XCTAssertEqual(String(decoding: got.prefix(header.utf8.count), as: UTF8.self), header)
        var packed = ByteBuffer()
        for k in 0..<3 { device.pack(k, device.layout(mask: 5)!.offsets, sampleSize: 4, into: &packed) }
        XCTAssertEqual(Array(got.dropFirst(header.utf8.count)), Array(packed.readableBytesView))
    }

    func testANonLoopingReplayEndsWithNoData() throws {
        let (server, _, _) = try serve("still.gcsv")
        let fd = try connect(server.port)
        // 600 samples of 2 bytes: ask for 1000, get 600 then "0"; then ENODATA.
        send(fd, Array("OPEN iio:device0 1000 00000001\r\nREADBUF iio:device0 2000\r\n".utf8))
        var got = [UInt8](), buf = [UInt8](repeating: 0, count: 4096)
        let want = "0\n1200\n00000001\n".utf8.count + 1200 + 2
        while got.count < want {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += buf[0..<n]
        }
        let header = "0\n1200\n00000001\n"
        XCTAssertEqual(String(decoding: got.prefix(header.utf8.count), as: UTF8.self), header)
        XCTAssertEqual(got.count, want)
        XCTAssertEqual(String(decoding: got.suffix(2), as: UTF8.self), "0\n")
        send(fd, Array("READBUF iio:device0 2\r\n".utf8))
        XCTAssertEqual(lines(fd, 1), ["-61"])
    }

    func testLoopingReplayGoesOnWithIncreasingTimestamps() throws {
        let (server, _, samples) = try serve("still.gcsv", loop: true)
        let r = try Self.run(["iio_readdev", "-u", "ip:127.0.0.1:\(server.port)", "-b", "500", "-s", "1500", "lockstep_fixture", "timestamp"])
        let bytes = [UInt8](r.stdout)
        XCTAssertEqual(bytes.count, 1500 * 8)
        let times = stride(from: 0, to: bytes.count, by: 8).map { i in bytes[i..<i + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        XCTAssertTrue(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        XCTAssertEqual(times[600], samples.last!.t + 5_000_000)
    }
}
