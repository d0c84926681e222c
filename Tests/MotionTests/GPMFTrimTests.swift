import XCTest

@testable import Motion

/// A payload's front cut off (`GPMFTrim`), on payloads built by hand as GoPro's docs/README.md
/// lays them out ("KLV Design", "Alignment and Storage"): the expected bytes are written out
/// here, not produced by the trimmer's own writer.
final class GPMFTrimTests: XCTestCase {
    /// A HERO-like payload over 1 s: GYRO with 10 samples (6 bytes each) and a STMP, SHUT with
    /// 4 samples (4 bytes each), and a one-sample stream.
    func payload(gyro: Range<Int>, shut: Range<Int>, one: Bool, stamp: UInt64) -> [UInt8] {
        var gyroRows: [UInt8] = []
        for i in gyro { gyroRows += be16(Int16(i)) + be16(Int16(-i)) + be16(Int16(100 + i)) }
        var shutRows: [UInt8] = []
        for i in shut { shutRows += be32(UInt32(i * 1000)) }
        var gyroStream: [UInt8] = klv("STMP", "J", 8, 1, be32(UInt32(stamp >> 32)) + be32(UInt32(stamp & 0xffff_ffff)))
        gyroStream += klv("TICK", "L", 4, 1, be32(UInt32(stamp / 1000))) + klv("TSMP", "L", 4, 1, be32(400))
        gyroStream += klv("SCAL", "s", 2, 1, be16(100))
        gyroStream += klv("GYRO", "s", 6, gyro.count, gyroRows)
        let shutStream: [UInt8] = klv("STNM", "c", 1, 8, Array("Exposure".utf8)) + klv("SHUT", "f", 4, shut.count, shutRows)
        let oneStream: [UInt8] = klv("ISOG", "f", 4, one ? 1 : 0, one ? be32(7) : [])
        var device: [UInt8] = klv("DVNM", "c", 1, 6, Array("Camera".utf8))
        device += nest("STRM", gyroStream) + nest("STRM", shutStream) + nest("STRM", oneStream)
        return nest("DEVC", device)
    }

    func testACutAtAQuarterKeepsTheSamplesFromTheFirstAtOrAfterIt() throws {
        // 0.25 s into 1 s: GYRO samples at 0, 0.1, 0.2 go (k = ceil(2.5) = 3), SHUT's at 0 goes
        // (k = ceil(1) = 1), the one-sample stream's (at 0) goes; STMP and TICK move on 3 periods
        // (300 ms).
        let cut = try GPMFTrim.droppingFront(of: payload(gyro: 0..<10, shut: 0..<4, one: true, stamp: 5_000_000), before: 0.25, duration: 1)
        XCTAssertEqual(cut, payload(gyro: 3..<10, shut: 1..<4, one: false, stamp: 5_300_000))
    }

    func testACutOnASampleKeepsThatSample() throws {
        // 0.5 s: GYRO sample 5 (at 0.5 s) stays, SHUT sample 2 (at 0.5 s) stays.
        let cut = try GPMFTrim.droppingFront(of: payload(gyro: 0..<10, shut: 0..<4, one: true, stamp: 1000), before: 0.5, duration: 1)
        XCTAssertEqual(cut, payload(gyro: 5..<10, shut: 2..<4, one: false, stamp: 501_000))
    }

    func testNoCutGivesThePayloadBack() throws {
        let whole = payload(gyro: 0..<10, shut: 0..<4, one: true, stamp: 1000)
        XCTAssertEqual(try GPMFTrim.droppingFront(of: whole, before: 0, duration: 1), whole)
        XCTAssertEqual(try GPMFTrim.write(GPMF.parse(whole)), whole)
    }

    func testADamagedPayloadThrows() {
        var broken = payload(gyro: 0..<10, shut: 0..<4, one: true, stamp: 1000)
        broken[6] = 0xFF  // DEVC claims more bytes than there are
        XCTAssertThrowsError(try GPMFTrim.droppingFront(of: broken, before: 0.3, duration: 1))
    }
}

/// One KLV: key, type, struct size, repeat (big-endian), data, zero padding to 32 bits.
private func klv(_ key: String, _ type: Character, _ size: Int, _ count: Int, _ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = Array(key.utf8)
    out += [type.asciiValue!, UInt8(size), UInt8(count >> 8), UInt8(count & 255)]
    out += data
    while out.count % 4 != 0 { out.append(0) }
    return out
}

/// A nest as GoPro writes it: type 0, size 1, repeat = its bytes.
private func nest(_ key: String, _ body: [UInt8]) -> [UInt8] {
    var out: [UInt8] = Array(key.utf8)
    out += [0, 1, UInt8(body.count >> 8), UInt8(body.count & 255)]
    return out + body
}

private func be16(_ v: Int16) -> [UInt8] {
    let u = UInt16(bitPattern: v)
    return [UInt8(u >> 8), UInt8(u & 255)]
}

private func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }
