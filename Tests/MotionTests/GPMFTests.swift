import XCTest

@testable import Motion

/// The GPMF KLV parser on byte sequences built by hand, following GoPro's docs/README.md
/// ("KLV Design", "Alignment and Storage"), not the parser's own code.
final class GPMFTests: XCTestCase {
    /// One KLV: key, type, struct size, repeat (big-endian), data, zero padding to 32 bits.
    func klv(_ key: String, _ type: Character, _ size: Int, _ count: Int, _ data: [UInt8]) -> [UInt8] {
        var out = Array(key.utf8) + [type == "\0" ? 0 : UInt8(ascii: type.unicodeScalars.first!), UInt8(size), UInt8(count >> 8), UInt8(count & 255)]
        out += data
        while out.count % 4 != 0 { out.append(0) }
        return out
    }
    func nest(_ key: String, _ children: [UInt8]...) -> [UInt8] {
        let body = children.flatMap { $0 }
        return klv(key, "\0", 1, body.count, body)  // GoPro writes nests as size 1, repeat = bytes
    }
    func be16(_ v: Int16) -> [UInt8] { let u = UInt16(bitPattern: v); return [UInt8(u >> 8), UInt8(u & 255)] }
    func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }
    func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xffff_ffff)) }
    func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testNestingAndAlignmentPadding() throws {
        // DVNM "Cam" (3 bytes + 1 pad), then a 1-byte item (3 pad bytes), then a nested STRM.
        let bytes = nest(
            "DEVC",
            klv("DVNM", "c", 1, 3, text("Cam")),
            klv("XTRA", "B", 1, 1, [7]),
            nest("STRM", klv("STNM", "c", 1, 5, text("Gyros")), klv("TSMP", "L", 4, 1, be32(1234))))
        let items = try GPMF.parse(bytes)
        XCTAssertEqual(items.count, 1)
        XCTAssertEqual(items[0].key, "DEVC")
        XCTAssertTrue(items[0].isNest)
        let kids = items[0].children
        XCTAssertEqual(kids.map(\.key.description), ["DVNM", "XTRA", "STRM"])
        XCTAssertEqual(kids[0].string, "Cam")
        XCTAssertEqual(try kids[1].numbers(), [7])
        XCTAssertEqual(kids[2].children.map(\.key.description), ["STNM", "TSMP"])
        XCTAssertEqual(kids[2].children[0].string, "Gyros")
        XCTAssertEqual(try kids[2].children[1].numbers(), [1234])
    }

    func testBigEndianTypes() throws {
        let f: Float = -1.5
        let d: Double = 12345.678
        let bytes =
            klv("AAAA", "s", 2, 2, be16(-2) + be16(300)) + klv("BBBB", "l", 4, 1, be32(UInt32(bitPattern: -70000)))
            + klv("CCCC", "f", 4, 1, be32(f.bitPattern)) + klv("DDDD", "d", 8, 1, be64(d.bitPattern))
            + klv("EEEE", "S", 2, 1, be16(Int16(bitPattern: 65000))) + klv("FFFF", "b", 1, 3, [0xff, 0x7f, 0x80])
            + klv("GGGG", "q", 4, 1, be32(0x0001_8000)) + klv("HHHH", "J", 8, 1, be64(1 << 40))
        let items = try GPMF.parse(bytes)
        XCTAssertEqual(try items[0].numbers(), [-2, 300])
        XCTAssertEqual(try items[1].numbers(), [-70000])
        XCTAssertEqual(try items[2].numbers(), [-1.5])
        XCTAssertEqual(try items[3].numbers(), [12345.678])
        XCTAssertEqual(try items[4].numbers(), [65000])
        XCTAssertEqual(try items[5].numbers(), [-1, 127, -128])
        XCTAssertEqual(try items[6].numbers(), [1.5])
        XCTAssertEqual(try items[7].numbers(), [Double(1 << 40)])
    }

    func testRepeatCountsGiveRowsOfTheStructSize() throws {
        // 's' with struct size 6: three int16 per sample, repeat 2.
        let item = try GPMF.parse(klv("GYRO", "s", 6, 2, be16(1) + be16(2) + be16(3) + be16(-4) + be16(-5) + be16(-6)))[0]
        XCTAssertEqual(try item.rows(), [[1, 2, 3], [-4, -5, -6]])
        // A struct size that is not a multiple of the type's size is an error, not a guess.
        let odd = try GPMF.parse(klv("GYRO", "s", 5, 1, [0, 1, 0, 2, 0]))[0]
        XCTAssertThrowsError(try odd.rows()) { XCTAssertEqual("\($0)", "GYRO: struct size 5 is not a multiple of its type's size 2") }
    }

    func testScalOnePerAxisAndOneForAll() throws {
        let perAxis = nest(
            "DEVC",
            nest(
                "STRM",
                klv("SCAL", "s", 2, 3, be16(10) + be16(100) + be16(1000)),
                klv("ACCL", "s", 6, 2, be16(10) + be16(100) + be16(1000) + be16(-20) + be16(50) + be16(3000))))
        let p = try GPMFPayload.read(perAxis)
        XCTAssertEqual(p.streams.count, 1)
        XCTAssertEqual(p.streams[0].samples, [[1, 1, 1], [-2, 0.5, 3]])

        let single = nest(
            "DEVC",
            nest(
                "STRM",
                klv("SIUN", "c", 1, 5, text("rad/s")), klv("SCAL", "s", 2, 1, be16(4)),
                klv("ORIN", "c", 1, 3, text("YxZ")), klv("TSMP", "L", 4, 1, be32(99)),
                klv("GYRO", "s", 6, 1, be16(4) + be16(-8) + be16(2))))
        let g = try GPMFPayload.read(single).streams[0]
        XCTAssertEqual(g.samples, [[1, -2, 0.5]])
        XCTAssertEqual(g.units, "rad/s")
        XCTAssertEqual(g.orientationIn, "YxZ")
        XCTAssertEqual(g.totalSamples, 99)

        let mismatched = nest("DEVC", nest("STRM", klv("SCAL", "s", 2, 2, be16(1) + be16(2)), klv("GYRO", "s", 6, 1, be16(1) + be16(2) + be16(3))))
        XCTAssertThrowsError(try GPMFPayload.read(mismatched)) { XCTAssertEqual("\($0)", "GYRO: SCAL has 2 divisors for 3 values per sample") }
        let zero = nest("DEVC", nest("STRM", klv("SCAL", "s", 2, 1, be16(0)), klv("GYRO", "s", 6, 1, be16(1) + be16(2) + be16(3))))
        XCTAssertThrowsError(try GPMFPayload.read(zero)) { XCTAssertEqual("\($0)", "GYRO: SCAL has a zero divisor") }
    }

    func testComplexTypeFromTYPE() throws {
        // TYPE "fs" describes a 6-byte struct: a float and an int16.
        let bytes = nest(
            "DEVC",
            nest(
                "STRM", klv("TYPE", "c", 1, 2, text("fs")),
                klv("ACCL", "?", 6, 2, be32(Float(2.5).bitPattern) + be16(-3) + be32(Float(-1).bitPattern) + be16(7))))
        XCTAssertEqual(try GPMFPayload.read(bytes).streams[0].samples, [[2.5, -3], [-1, 7]])
        XCTAssertEqual(try GPMFItem.elementTypes("f[3]s"), Array("fffs".utf8))
        // A struct holds at most 255 bytes: a TYPE describing more elements is refused, not expanded.
        XCTAssertThrowsError(try GPMFItem.elementTypes("f[200]s[99999]")) {
            XCTAssertEqual("\($0)", "TYPE \"f[200]s[99999]\" describes more than 255 elements")
        }
        let noType = try GPMF.parse(klv("ACCL", "?", 6, 1, [0, 0, 0, 0, 0, 0]))[0]
        XCTAssertThrowsError(try noType.rows()) { XCTAssertEqual("\($0)", "ACCL is a complex structure without a TYPE") }
    }

    func testStickyPropertiesStayInTheirStream() throws {
        // The second STRM has no SCAL: the first one's must not leak into it.
        let bytes = nest(
            "DEVC", klv("DVNM", "c", 1, 6, text("Camera")),
            nest("STRM", klv("SCAL", "s", 2, 1, be16(2)), klv("GYRO", "s", 6, 1, be16(2) + be16(4) + be16(6))),
            nest("STRM", klv("ACCL", "s", 6, 1, be16(2) + be16(4) + be16(6))))
        let p = try GPMFPayload.read(bytes)
        XCTAssertEqual(p.deviceName, "Camera")
        XCTAssertEqual(p.streams.map(\.key.description), ["GYRO", "ACCL"])
        XCTAssertEqual(p.streams[0].samples, [[1, 2, 3]])
        XCTAssertEqual(p.streams[1].samples, [[2, 4, 6]])
    }

    func testTruncatedAndBogusSizesAreErrorsNotTraps() throws {
        let good = nest("DEVC", nest("STRM", klv("GYRO", "s", 6, 2, [UInt8](repeating: 1, count: 12))))
        // Every cut of a valid payload either parses (cut at an item boundary) or throws.
        for n in 0..<good.count {
            _ = try? GPMFPayload.read(Array(good[0..<n]))
        }
        XCTAssertThrowsError(try GPMF.parse(Array(good[0..<6]))) {
            XCTAssertEqual("\($0)", "truncated item header at byte 0 (6 bytes left, 8 needed)")
        }
        // A size far beyond the buffer.
        var bogus = klv("GYRO", "s", 6, 1, [0, 1, 0, 2, 0, 3])
        bogus[6] = 0xff; bogus[7] = 0xff
        XCTAssertThrowsError(try GPMF.parse(bogus)) { XCTAssertEqual("\($0)", "GYRO at byte 0 claims 393210 bytes, only 8 left") }
        // A nest whose size is larger than its parent's.
        var inner = nest("DEVC", nest("STRM", klv("GYRO", "s", 6, 1, [0, 1, 0, 2, 0, 3])))
        inner[14] = 0x10
        XCTAssertThrowsError(try GPMF.parse(inner))
        // Not a key.
        XCTAssertThrowsError(try GPMF.parse([0x01, 0x02, 0x03, 0x04, 0x63, 1, 0, 0])) { XCTAssertEqual("\($0)", "bad key 01020304 at byte 0") }
        // Nesting beyond the limit.
        var deep = klv("GYRO", "s", 2, 1, [0, 1])
        for _ in 0...GPMF.maxDepth + 1 { deep = nest("DEVC", deep) }
        XCTAssertThrowsError(try GPMF.parse(deep)) { XCTAssertEqual("\($0)", "nesting deeper than \(GPMF.maxDepth) levels") }
        // Trailing zero padding after the last item is allowed.
        XCTAssertEqual(try GPMF.parse(good + [0, 0, 0, 0, 0, 0, 0, 0]).count, 1)
    }

    func testSamplesSpreadOverEachPacketsSpan() throws {
        func payload(_ n: Int) -> [UInt8] {
            nest(
                "DEVC",
                nest("STRM", klv("SCAL", "s", 2, 1, be16(1)), klv("GYRO", "s", 6, n, (0..<n).flatMap { (i: Int) -> [UInt8] in be16(Int16(i)) + be16(0) + be16(0) })),
                nest("STRM", klv("SCAL", "s", 2, 1, be16(1)), klv("ACCL", "s", 6, n / 2, (0..<n / 2).flatMap { be16(Int16($0 * 2)) + be16(1) + be16(0) })))
        }
        // Two packets: [0, 1) with 4 samples, [1, 1.5) with 2.
        let imu = try GoProIMU.read(
            [
                TelemetryPacket(bytes: payload(4), time: 0, duration: 1),
                TelemetryPacket(bytes: payload(2), time: 1, duration: 0.5)
            ], modelHint: "HERO5 Black")
        XCTAssertEqual(imu.gyro.map(\.t), [0, 250_000_000, 500_000_000, 750_000_000, 1_000_000_000, 1_250_000_000])
        XCTAssertEqual(imu.gyro.map(\.x), [0, 1, 2, 3, 0, 1])
        XCTAssertEqual(imu.accel.map(\.t), [0, 500_000_000, 1_000_000_000])
        XCTAssertEqual(imu.gyroRateHz!, 6 / 1.5, accuracy: 1e-9)
        XCTAssertEqual(imu.axisMapping, .orientation("yxz"))
        // Accelerometer (x = 0 at 0 s, 2 at 0.5 s, 0 at 1 s) interpolated at the gyro's times.
        let r = imu.readings()
        XCTAssertEqual(r.count, 6)
        XCTAssertEqual(r.map { $0.accel!.x }, [0, 1, 2, 1, 0, 0])
    }

    func testPayloadCountJitterDoesNotBendTheClock() throws {
        // A steady 400 Hz sensor whose payloads, flushed every second, hold 392, 408, 400, 400
        // samples (as GoPro's do): one rate for all, not a rate per packet.
        func payload(_ n: Int) -> [UInt8] {
            nest("DEVC", nest("STRM", klv("GYRO", "s", 6, n, (0..<n).flatMap { _ in be16(1) + be16(2) + be16(3) })))
        }
        let counts = [392, 408, 400, 400]
        let packets = counts.enumerated().map { TelemetryPacket(bytes: payload($1), time: Double($0), duration: 1) }
        let imu = try GoProIMU.read(packets)
        XCTAssertEqual(imu.gyro.count, 1600)
        let steps = zip(imu.gyro, imu.gyro.dropFirst()).map { Double($1.t - $0.t) }
        XCTAssertEqual(steps.min()!, steps.max()!, accuracy: 1)  // evenly spaced, to the ns rounding
        XCTAssertEqual(imu.gyroRateHz!, 400, accuracy: 5)
        XCTAssertEqual(imu.warnings, [])
        XCTAssertNil(imu.axisMapping)  // no model, no ORIN: nothing claimed
        // Units other than GoPro's rad/s and m/s^2 are converted.
        let inG = nest(
            "DEVC", nest("STRM", klv("SIUN", "c", 1, 1, text("g")), klv("ACCL", "s", 6, 1, be16(1) + be16(0) + be16(-2))),
            nest("STRM", klv("SIUN", "c", 1, 5, text("deg/s")), klv("GYRO", "s", 6, 1, be16(180) + be16(0) + be16(0))))
        let converted = try GoProIMU.read([TelemetryPacket(bytes: inG, time: 0, duration: 1)])
        XCTAssertEqual(converted.accel.map(\.z), [-2 * standardGravity])
        XCTAssertEqual(converted.gyro[0].x, Double.pi, accuracy: 1e-12)
        // A payload missing for 3 s: the clock strays from one rate, and that is said.
        let gap = [
            TelemetryPacket(bytes: payload(400), time: 0, duration: 1), TelemetryPacket(bytes: payload(400), time: 1, duration: 1),
            TelemetryPacket(bytes: payload(400), time: 5, duration: 1)
        ]
        XCTAssertEqual(try GoProIMU.read(gap).warnings.count, 1)
    }

    func testAxisMappingFromORINAndModel() {
        // HERO5, data order Z,X,Y; GoPro's axes X left, Y back, Z up; Lockstep's x right, y down, z forward.
        XCTAssertEqual(GoProIMU.axisMapping(orientationIn: nil, model: "HERO5 Black")?.mapping, .orientation("yxz"))
        // HERO6 "Y,-X,Z": channel 1 is -X, so camera x = -X = channel 1 (upper case).
        XCTAssertEqual(GoProIMU.axisMapping(orientationIn: nil, model: "HERO6 Black")?.mapping, .orientation("Yzx"))
        // ORIN wins over the model.
        XCTAssertEqual(GoProIMU.axisMapping(orientationIn: "XYZ", model: "HERO5 Black")?.mapping, .orientation("xzy"))
        XCTAssertNil(GoProIMU.axisMapping(orientationIn: nil, model: "HERO11 Black"))
        // Every mapping claimed is a proper rotation (determinant +1): GoPro's axes and ours are right-handed.
        for orin in ["ZXY", "YxZ", "yXZ", "XYZ", "xZy"] {
            let m = GoProIMU.axisMapping(orientationIn: orin, model: nil)!.mapping.rows
            let det =
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            let expected: Double = ["ZXY", "YxZ", "yXZ", "XYZ"].contains(orin) ? 1 : -1  // ORIN itself may be a reflection
            XCTAssertEqual(det, expected, orin)
        }
    }

    /// Streams with STMP (MAX, HERO8 and later) are timed by their stamps against the
    /// frame-locked SHUT stream, as gpmf-parser does: the first frame is video time 0, whatever
    /// the packets' times say.
    func testStampedStreamsAreTimedAgainstTheFrames() throws {
        func payload(gyroStamp: UInt64, n: Int, frameStamp: UInt64, frames: Int) -> [UInt8] {
            nest(
                "DEVC",
                nest(
                    "STRM", klv("STMP", "J", 8, 1, be64(gyroStamp)), klv("SCAL", "s", 2, 1, be16(100)),
                    klv("GYRO", "s", 6, n, (0..<n).flatMap { (_: Int) -> [UInt8] in be16(10) + be16(20) + be16(30) })),
                nest("STRM", klv("STMP", "J", 8, 1, be64(frameStamp)), klv("SHUT", "f", 4, frames, (0..<frames).flatMap { (_: Int) -> [UInt8] in be32(Float(0.001).bitPattern) })),
                nest(
                    "STRM", klv("STMP", "J", 8, 1, be64(frameStamp)), klv("SCAL", "s", 2, 1, be16(32767)),
                    klv("CORI", "s", 8, frames, (0..<frames).flatMap { (_: Int) -> [UInt8] in be16(32767) + be16(0) + be16(0) + be16(0) })),
                nest(
                    "STRM", klv("STMP", "J", 8, 1, be64(frameStamp)), klv("SCAL", "s", 2, 1, be16(32767)),
                    klv("IORI", "s", 8, frames, (0..<frames).flatMap { (_: Int) -> [UInt8] in be16(0) + be16(32767) + be16(0) + be16(0) })))
        }
        // 200 Hz gyro, its first sample 5 ms before the first frame (camera clock in us);
        // 30 frames per payload at 33333.333 us. The packets' own times are off by 40 ms.
        let packets = (0..<3).map { k in
            TelemetryPacket(
                bytes: payload(gyroStamp: 995_000 + UInt64(k) * 1_000_000, n: 200, frameStamp: 1_000_000 + UInt64(k) * 1_000_000, frames: 30),
                time: 0.04 + Double(k), duration: 1)
        }
        let imu = try GoProIMU.read(packets)
        XCTAssertEqual(imu.gyro.count, 600)
        XCTAssertEqual(Double(imu.gyro[0].t), -5_000_000, accuracy: 1)
        XCTAssertEqual(Double(imu.gyro[200].t), 995_000_000, accuracy: 1)
        XCTAssertEqual(imu.gyroRateHz!, 200, accuracy: 1e-9)
        XCTAssertTrue(imu.timing.hasPrefix("GoPro's STMP stamps"), imu.timing)
        XCTAssertEqual(imu.gyro[0].x, 0.1, accuracy: 1e-12)
        // One orientation record per frame, at the frames' times: CORI identity, IORI a half turn about x.
        XCTAssertEqual(imu.cameraOrientation.count, 90)
        XCTAssertEqual(Double(imu.cameraOrientation[1].t), 1e9 / 30, accuracy: 1)
        XCTAssertEqual(imu.cameraOrientation[0].q, Quaternion.identity)
        XCTAssertEqual(imu.imageOrientation[0].q.x, 1, accuracy: 1e-12)
        XCTAssertNil(imu.stabilisation)
    }

    /// Stabilisation as the file says it: HERO7 and later write EISE/EISA into the udta box's
    /// settings stream; HERO5/6 write EISA at the device level of the track's payloads.
    func testStabilisationSettings() throws {
        let udta = nest(
            "DEVC", klv("DVNM", "c", 1, 20, text("Video Global Setting")),
            nest("STRM", klv("MINF", "c", 1, 11, text("HERO7 Black")), klv("EISE", "c", 1, 1, text("Y")), klv("EISA", "c", 1, 8, text("HS EIS") + [0, 0])))
        let settings = try GPMFPayload.read(udta, keys: []).settings
        XCTAssertEqual(settings, ["EISE": "Y", "EISA": "HS EIS"])
        XCTAssertEqual(InCameraStabilisation.goPro(settings), InCameraStabilisation(enabled: true, mode: "HS EIS", source: "GPMF EISE \"Y\", EISA \"HS EIS\""))
        let hero5 = nest("DEVC", klv("DVNM", "c", 1, 6, text("Camera")), klv("EISA", "c", 1, 1, text("N")))
        XCTAssertEqual(InCameraStabilisation.goPro(try GPMFPayload.read(hero5).settings)?.enabled, false)
        XCTAssertEqual(InCameraStabilisation.goPro(["EISE": "N", "EISA": "HS EIS"])?.enabled, false)
        XCTAssertNil(InCameraStabilisation.goPro([:]))
        // The file's settings reach the telemetry read from its packets.
        let gyro = nest("DEVC", nest("STRM", klv("GYRO", "s", 6, 2, be16(1) + be16(2) + be16(3) + be16(1) + be16(2) + be16(3))))
        let imu = try GoProIMU.read([TelemetryPacket(bytes: gyro, time: 0, duration: 1)], fileSettings: settings)
        XCTAssertEqual(imu.stabilisation?.mode, "HS EIS")
    }
}
