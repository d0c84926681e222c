import Motion
import NIOCore
import XCTest

@testable import IIO

final class ReplayDeviceTests: XCTestCase {
    let samples = (0..<10).map { IMUReading(t: 1_000 + Int64($0) * 5_000_000, gyro: SIMD3(0.01 * Double($0), -1, 2), accel: SIMD3(0, -9.8, Double($0))) }

    func testChannelsInScanOrderAndSampleLayoutLikeTheKernel() throws {
        let d = try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: samples, hasAccel: true)
        XCTAssertEqual(d.channels.map(\.id), ["anglvel_x", "anglvel_y", "anglvel_z", "accel_x", "accel_y", "accel_z", "timestamp"])
        // Six s16 (12 bytes), padded to 16 for the s64 timestamp: 24 bytes.
        XCTAssertEqual(d.layout(mask: 0x7f)!.sampleSize, 24)
        XCTAssertEqual(d.layout(mask: 0x7f)!.offsets.map(\.offset), [0, 2, 4, 6, 8, 10, 16])
        let gyroOnly = try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: samples, hasAccel: false)
        XCTAssertEqual(gyroOnly.layout(mask: 0xf)!.sampleSize, 16)
        XCTAssertEqual(gyroOnly.layout(mask: 0x5)!.offsets.map(\.offset), [0, 2])
        XCTAssertNil(gyroOnly.layout(mask: 0), "no channel")
        XCTAssertNil(gyroOnly.layout(mask: 0x10), "no channel 4")
    }

    func testPackedValuesAreQuantisedWithTheScale() throws {
        let d = try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x", channelScales: ["anglvel_x": 0.001]), samples: samples, hasAccel: false)
        var buffer = ByteBuffer()
        d.pack(3, d.layout(mask: 0xf)!.offsets, sampleSize: 16, into: &buffer)
        let out = Array(buffer.readableBytesView)
        XCTAssertEqual(out.count, 16)
        func s16(_ i: Int) -> Int16 { Int16(bitPattern: UInt16(out[i]) | UInt16(out[i + 1]) << 8) }
        XCTAssertEqual([s16(0), s16(2), s16(4)], [30, -1000, 2000])
        let t = out[8..<16].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        XCTAssertEqual(t, 15_001_000)
    }

    func testScaleIsTheTracesUnlessValuesWouldNotFit() {
        XCTAssertEqual(ReplayDevice.scale(known: 0.001, needed: 30, fallback: 0.5), 0.001)
        XCTAssertEqual(ReplayDevice.scale(known: 0.0001, needed: 30, fallback: 0.00106), 0.00106, "30 rad/s does not fit at 0.0001")
        XCTAssertEqual(ReplayDevice.scale(known: nil, needed: 100, fallback: 0.00106), 100.0 / 32000)
    }

    func testLoopContinuesTheTimestamps() throws {
        let d = try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: samples, hasAccel: false)
        XCTAssertEqual(d.sample(10).t, samples[0].t + 45_000_000 + 5_000_000)
        XCTAssertEqual(d.sample(9).t, samples[9].t)
    }

    func testXMLStartsWithLibiiosDTDAndNamesTheDevice() throws {
        let d = try ReplayDevice(info: TraceInfo(deviceName: "a<b>", sourceURI: "x"), samples: samples, hasAccel: true)
        XCTAssertTrue(d.xml.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?><!DOCTYPE context [<!ELEMENT context (device | context-attribute)*>"))
        XCTAssertTrue(d.xml.contains("<device id=\"iio:device0\" name=\"a&lt;b&gt;\" >"))
        XCTAssertTrue(d.xml.contains("<scan-element index=\"6\" format=\"le:s64/64&gt;&gt;0\" />"))
        XCTAssertTrue(d.xml.contains("filename=\"in_accel_scale\""))
        XCTAssertEqual(d.deviceAttribute("sampling_frequency"), "200")
    }

    func testValuesThatAreNotFiniteAreRefusedWithTheSampleAndChannel() {
        var bad = samples
        bad[4].gyro.y = .infinity
        XCTAssertThrowsError(try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: bad, hasAccel: true)) {
            XCTAssertEqual($0 as? ReplayDeviceError, .notFinite(t: 20_001_000, channel: "anglvel_y", value: .infinity))
            XCTAssertEqual("\($0)", "the sample at 20001000 ns holds anglvel_y = inf; only finite values can be replayed")
        }
        bad = samples
        bad[9].accel = SIMD3(0, -.infinity, 0)
        XCTAssertThrowsError(try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: bad, hasAccel: true)) {
            XCTAssertEqual("\($0)", "the sample at 45001000 ns holds accel_y = -inf; only finite values can be replayed")
        }
        XCTAssertNoThrow(
            try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: bad, hasAccel: false),
            "acceleration that is not served is not looked at")
        bad[0].gyro.z = .nan
        XCTAssertThrowsError(try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: bad, hasAccel: false)) {
            XCTAssertEqual("\($0)", "the sample at 1000 ns holds anglvel_z = nan; only finite values can be replayed")
        }
        XCTAssertThrowsError(try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: [], hasAccel: false)) {
            XCTAssertEqual($0 as? ReplayDeviceError, .noSamples)
        }
    }

    /// A value beyond `IMUReading.largestValue` is refused with a sentence (its s16 scale would be
    /// past what libiio reads); the largest allowed ones, and scales that are not numbers, still
    /// make a device.
    func testHugeValuesAreRefusedAndScalesThatAreNotNumbersStillMakeADevice() throws {
        var big = samples
        big[2].gyro.x = 1e308
        let scales = ["anglvel_x": Double.infinity, "accel_x": .nan]
        let info = TraceInfo(deviceName: "g", sourceURI: "x", rateHz: .infinity, channelScales: scales)
        XCTAssertThrowsError(try ReplayDevice(info: info, samples: big, hasAccel: true)) {
            XCTAssertEqual("\($0)", "the sample at \(big[2].t) ns holds anglvel_x = 1e+308, beyond +-1000000; not a motion sensor's reading, and no IIO client could read its scale")
        }
        big[2].gyro.x = 1e6; big[3].gyro.x = -1e6
        let d = try ReplayDevice(info: info, samples: big, hasAccel: true)
        XCTAssertEqual(d.channels[0].scale, 1e6 / 32000)
        XCTAssertEqual(d.channels[3].scale, ReplayDevice.defaultAccelScale, "a NaN scale is not the trace's own")
        XCTAssertEqual(d.rateHz, 200, "an infinite declared rate gives way to the measured one")
        XCTAssertEqual(d.sample(2).raws.first, 32000)
        XCTAssertEqual(d.sample(3).raws.first, -32000)
    }
}
