import Foundation
import Glibc
import Motion
import TraceStore
import XCTest

@testable import IIO

/// The recorder against the replay server through libiio's network backend: what goes out
/// comes back.
final class RecorderTests: IIOTestCase {
    func testRoundTripWithAccelerometer() throws {
        let (server, device, samples) = try serve("shake.gcsv")
        let path = scratch.appendingPathComponent("r.sqlite").path
        let r = try record(RecorderOptions(uri: "ip:127.0.0.1:\(server.port)", accel: true, sampleLimit: samples.count), into: path)
        XCTAssertEqual(r.stop, .sampleLimitReached)
        XCTAssertEqual(r.samples, samples.count)
        let store = try TraceStore(path: path, mode: .readOnly)
        let trace = try store.trace(r.trace!)
        XCTAssertEqual(trace.info.deviceName, "lockstep_fixture")
        XCTAssertEqual(trace.info.sourceURI, "ip:127.0.0.1:\(server.port)")
        XCTAssertEqual(trace.info.clock, "monotonic")
        XCTAssertEqual(trace.info.rateHz, 200)
        XCTAssertEqual(trace.info.channelScales["anglvel_z"], device.channels[2].scale)
        XCTAssertTrue(trace.hasAccel)
        assertSameTrace(try store.samples(of: r.trace!), samples, gyroScale: device.channels[0].scale!, accelScale: device.channels[3].scale!)
    }

    func testRoundTripGyroOnlyWithAShortLastRefill() throws {
        let (server, device, samples) = try serve("pan.csv")
        let path = scratch.appendingPathComponent("r.sqlite").path
        // 800 samples in buffers of 64: the last refill brings 32.
        let r = try record(RecorderOptions(uri: "ip:127.0.0.1:\(server.port)", device: "iio:device0", sampleLimit: 800, bufferSamples: 64), into: path)
        XCTAssertEqual(r.stop, .sampleLimitReached)
        let store = try TraceStore(path: path, mode: .readOnly)
        XCTAssertFalse(try store.trace(r.trace!).hasAccel)
        let got = try store.samples(of: r.trace!)
        XCTAssertNil(got[0].accel)
        assertSameTrace(got, samples, gyroScale: device.channels[0].scale!, accelScale: nil)
    }

    func testDurationIsSampleTime() throws {
        let (server, _, samples) = try serve("still.gcsv")
        let path = scratch.appendingPathComponent("r.sqlite").path
        let r = try record(RecorderOptions(uri: "ip:127.0.0.1:\(server.port)", duration: 1.0), into: path)
        XCTAssertEqual(r.stop, .durationReached)
        XCTAssertEqual(r.samples, 200, "samples in [0, 1 s) at 200 Hz")
        XCTAssertEqual(try TraceStore(path: path).samples(of: r.trace!).last!.t, samples[199].t)
    }

    func testTheEndOfANonLoopingReplayIsAFailureThatKeepsEverything() throws {
        let (server, _, samples) = try serve("still.gcsv")
        let path = scratch.appendingPathComponent("r.sqlite").path
        let r = try record(RecorderOptions(uri: "ip:127.0.0.1:\(server.port)"), into: path)
        XCTAssertEqual(r.stop, .failed("the device stopped sending (iio_buffer_refill(iio:device0): No data available (61))"))
        XCTAssertFalse(r.stop.wasAskedFor)
        XCTAssertEqual(try TraceStore(path: path).sampleCount(r.trace!), samples.count)
    }

    func testStopFromAnotherThreadEndsCleanly() throws {
        let (server, _, _) = try serve("still.gcsv", speed: 1, loop: true)
        let store = try TraceStore(path: scratch.appendingPathComponent("r.sqlite").path)
        let sink = TestSink(store)
        let recorder = Recorder(options: RecorderOptions(uri: "ip:127.0.0.1:\(server.port)"))
        // Stopped once 100 samples are stored, not after a fixed second: under load the first
        // commit can come later than that, and the recording would stop before it began.
        let hundred = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            hundred.wait(); recorder.stop(.interrupted)
        }
        var signalled = false
        let (stop, n) = recorder.run(into: sink) { stored in
            if stored >= 100 && !signalled { signalled = true; hundred.signal() }
        }
        XCTAssertEqual(stop, .interrupted)
        XCTAssertGreaterThanOrEqual(n, 100)
        XCTAssertEqual(try store.sampleCount(sink.trace!), n, "everything received is stored")
        XCTAssertEqual(sink.commits.reduce(0, +), n)
    }

    func testErrorsCarryLibiiosMessage() throws {
        // A port nobody listens on: libiio's own words for ECONNREFUSED, and the function.
        let listener = try IIODServer(
            device: try ReplayDevice(info: TraceInfo(deviceName: "x", sourceURI: "x"), samples: [IMUReading(t: 0, gyro: SIMD3(0, 0, 0))], hasAccel: false),
            options: .init(port: 0))
        let port = listener.port
        listener.stop()
        XCTAssertThrowsError(try IIOContext(uri: "ip:127.0.0.1:\(port)")) { error in
            let e = error as! IIOError
            XCTAssertEqual(e.function, "iio_create_context_from_uri(ip:127.0.0.1:\(port))")
            XCTAssertEqual(e.code, ECONNREFUSED)
            XCTAssertEqual(e.message, "Connection refused (111)")
        }
        let (server, _, _) = try serve("pan.csv")
        let uri = "ip:127.0.0.1:\(server.port)"
        let path = scratch.appendingPathComponent("r.sqlite").path
        XCTAssertEqual(
            try record(RecorderOptions(uri: uri, device: "bmi160"), into: path).stop,
            .failed("\(uri) has no device named bmi160 (it has: pan)"))
        XCTAssertEqual(
            try record(RecorderOptions(uri: uri, rateHz: 100), into: path).stop,
            .failed("iio_device_attr_write_double(sampling_frequency): Invalid argument (22)"))
        XCTAssertEqual(
            try record(RecorderOptions(uri: uri, rateHz: 200, sampleLimit: 10), into: path).stop, .sampleLimitReached,
            "the device's own rate may be written")
        XCTAssertEqual(try TraceStore(path: path).traces().count, 1, "failed starts leave no trace behind")

        let (_, samples, _) = try Self.load("pan.csv")
        let gyroOnly = try IIODServer(device: try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: samples, hasAccel: false), options: .init(port: 0))
        gyroOnly.start()
        defer { gyroOnly.stop() }
        XCTAssertEqual(
            try record(RecorderOptions(uri: "ip:127.0.0.1:\(gyroOnly.port)", accel: true), into: path).stop,
            .failed("ip:127.0.0.1:\(gyroOnly.port) has no accelerometer (no device with accel_x, accel_y and accel_z channels)"))
    }

    func testContextOwnsItsDevicesAndChannels() throws {
        let (server, _, _) = try serve("shake.gcsv")
        var device: IIODevice?
        do {
            let context = try IIOContext(uri: "ip:127.0.0.1:\(server.port)")
            device = context.device(named: "lockstep_fixture")
        }
        // The context is gone from this scope, but the device keeps it alive.
        XCTAssertEqual(device?.id, "iio:device0")
        XCTAssertEqual(try device?.channel("anglvel_y")?.readDouble("scale"), 0.001065264)
        XCTAssertEqual(try device?.readAttribute("current_timestamp_clock"), "monotonic")
        XCTAssertThrowsError(try device!.readAttribute("nothing")) { XCTAssertEqual(($0 as! IIOError).function, "iio_device_attr_read(nothing)") }
    }

    func testARecordingOutlastsTheServersIdleTimeout() throws {
        // The context's own connection goes quiet while the buffer's streams: the server may
        // close it for idling (after 1 s here) without the recording noticing. The samples go
        // to memory: a store's commit (fsyncs) between two refills, slow on a loaded machine,
        // would leave the buffer's connection idle too, and this test is about the server.
        let (info, samples, _) = try Self.load("still.gcsv")
        let server = try IIODServer(
            device: try ReplayDevice(info: info, samples: samples, hasAccel: false),
            options: .init(port: 0, speed: 1, idleTimeout: 1))
        server.start()
        defer { server.stop() }
        let sink = MemorySink()
        let (stop, n) = Recorder(options: RecorderOptions(uri: "ip:127.0.0.1:\(server.port)", duration: 2.5)).run(into: sink)
        XCTAssertEqual(stop, .durationReached)
        XCTAssertEqual(n, 500)
        XCTAssertEqual(server.statistics.idleClosed, 1, "the context's connection was closed mid-recording")
        XCTAssertEqual(sink.samples.map(\.t), Array(samples.prefix(500)).map(\.t))
    }
}
