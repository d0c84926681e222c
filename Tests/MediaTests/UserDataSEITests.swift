import XCTest

@testable import Media

/// The SEI put into copied H.264 and encoded HEVC access units, on hand-made NAL units (no files).
final class UserDataSEITests: XCTestCase {
    let uuid = Array("LOCKSTEP-PROV-v1".utf8)
    let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1f], pps: [UInt8] = [0x68, 0xee, 0x3c, 0x80]
    let idr: [UInt8] = [0x65, 0x88, 0x84, 0x00, 0x00, 0x03, 0x01], aud: [UInt8] = [0x09, 0xf0]

    func lengthPrefixed(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for u in units {
            let n = UInt32(u.count)
            out.append(UInt8(n >> 24)); out.append(UInt8((n >> 16) & 255)); out.append(UInt8((n >> 8) & 255)); out.append(UInt8(n & 255))
            out.append(contentsOf: u)
        }
        return out
    }

    func joined(_ parts: [[UInt8]]) -> [UInt8] { parts.flatMap { $0 } }

    func testSEIMessageLayoutAndEmulationPrevention() {
        let nal = UserDataSEI.seiNAL(payload: uuid + [0, 0, 1, 0x41])
        // header, type 5, size 20, payload with 00 00 01 escaped to 00 00 03 01, trailing bits.
        XCTAssertEqual(nal, joined([[0x06, 5, 20], uuid, [0, 0, 3, 1, 0x41, 0x80]]))
        let long = UserDataSEI.seiNAL(payload: joined([uuid, [UInt8](repeating: 0x41, count: 300)]))
        XCTAssertEqual(Array(long[1...3]), [5, 255, 61], "a size of 316 is 255 + 61")
    }

    func testPutBeforeTheFirstPictureAndAnOldOneReplaced() throws {
        let old = UserDataSEI.seiNAL(payload: joined([uuid, Array("{\"k\":7}".utf8)]))
        let other: [UInt8] = Array(Array("x264-version-uuid".utf8).prefix(16))
        let x264: [UInt8] = joined([[0x06, 5, 17], other, [0x41, 0x80]])  // someone else's user data
        let au = lengthPrefixed([aud, sps, pps, x264, old, idr])
        let payload: [UInt8] = joined([uuid, Array("{\"k\":0}".utf8)])
        let out = try UserDataSEI.replacingUserData(in: au, framing: .lengthPrefixed(4), payload: payload)
        XCTAssertEqual(out, lengthPrefixed([aud, sps, pps, x264, UserDataSEI.seiNAL(payload: payload), idr]))
        // Annex B: start codes in, start codes out; trailing zeros of a unit are not part of it.
        let start: [UInt8] = [0, 0, 0, 1]
        let annexB = joined([start, sps, [0, 0, 1], pps, [0, 0], start, idr])
        let expected = joined([start, sps, start, pps, start, UserDataSEI.seiNAL(payload: payload), start, idr])
        XCTAssertEqual(try UserDataSEI.replacingUserData(in: annexB, framing: .annexB, payload: payload), expected)
    }

    func testFramingFromExtradataAndMalformedUnits() {
        XCTAssertEqual(UserDataSEI.Framing(extradata: [1, 0x64, 0, 0x1f, 0xfd, 0xe1, 0]), .lengthPrefixed(2))
        XCTAssertEqual(UserDataSEI.Framing(extradata: [0, 0, 0, 1, 0x67]), .annexB)
        XCTAssertEqual(UserDataSEI.Framing(extradata: []), .annexB)
        XCTAssertThrowsError(try UserDataSEI.replacingUserData(in: [0, 0, 0, 9, 0x65], framing: .lengthPrefixed(4), payload: uuid))
        XCTAssertThrowsError(
            try UserDataSEI.replacingUserData(in: lengthPrefixed([sps, pps]), framing: .lengthPrefixed(4), payload: uuid),
            "no picture in it")
    }

    /// HEVC (two-byte NAL headers): the message is a prefix SEI (type 39) put before the first
    /// slice (types 0 to 31), after the parameter sets and libx265's own SEI; an old one of ours
    /// is dropped. This is how every HEVC output gets its provenance (issue 40).
    func testHEVCPrefixSEIBeforeTheFirstSlice() throws {
        let vps: [UInt8] = [0x40, 0x01, 0x0c], hevcSPS: [UInt8] = [0x42, 0x01, 0x01], hevcPPS: [UInt8] = [0x44, 0x01, 0xc1]
        let x265: [UInt8] = joined([[0x4e, 0x01, 5, 17], Array(Array("x265-version-uuid".utf8).prefix(16)), [0x41, 0x80]])
        let idrSlice: [UInt8] = [0x26, 0x01, 0xaf, 0x00, 0x00, 0x03], trailSlice: [UInt8] = [0x02, 0x01, 0xd0]
        let payload = joined([uuid, Array("{\"k\":300}".utf8)])
        let sei = UserDataSEI.seiNAL(payload: payload, syntax: .hevc)
        XCTAssertEqual(Array(sei.prefix(4)), [0x4e, 0x01, 5, 25], "prefix SEI header, type 5, size 25")
        XCTAssertEqual(sei.last, 0x80)
        let start: [UInt8] = [0, 0, 0, 1]
        let au = joined([start, vps, start, hevcSPS, start, hevcPPS, start, x265, start, idrSlice])
        XCTAssertEqual(
            try UserDataSEI.replacingUserData(in: au, framing: .annexB, payload: payload, syntax: .hevc),
            joined([start, vps, start, hevcSPS, start, hevcPPS, start, x265, start, sei, start, idrSlice]))
        let old = UserDataSEI.seiNAL(payload: joined([uuid, Array("{\"k\":1}".utf8)]), syntax: .hevc)
        XCTAssertEqual(
            try UserDataSEI.replacingUserData(in: joined([start, old, start, trailSlice]), framing: .annexB, payload: payload, syntax: .hevc),
            joined([start, sei, start, trailSlice]))
        // Found in place (how the writer puts it into libx265's packets): the four-byte start code
        // of the slice, after three- and four-byte ones of the parameter sets.
        let packet = joined([start, vps, [0, 0, 1], hevcSPS, start, x265, start, idrSlice])
        XCTAssertEqual(packet.withUnsafeBufferPointer { UserDataSEI.firstPictureStartCode(in: $0, syntax: .hevc) }, 4 + 3 + 3 + 3 + 4 + x265.count)
        XCTAssertNil(joined([start, vps, start, hevcSPS]).withUnsafeBufferPointer { UserDataSEI.firstPictureStartCode(in: $0, syntax: .hevc) })
        // Parameter sets alone hold no picture: refused.
        XCTAssertThrowsError(try UserDataSEI.replacingUserData(in: joined([start, vps, start, hevcSPS]), framing: .annexB, payload: payload, syntax: .hevc))
    }
}
