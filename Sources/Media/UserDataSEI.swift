/// Lockstep's provenance put into H.264 and HEVC access units after the encoder (or instead of
/// one): a "user data unregistered" SEI message (payload type 5 in both), which FFmpeg's h264
/// and hevc decoders hand back as the frame's AV_FRAME_DATA_SEI_UNREGISTERED side data, so
/// `verify` reads every carrier alike. Pure bytes, no FFmpeg.
///
/// Two writers use it: `concat --copy` (H.264 access units copied, not encoded) and every HEVC
/// output (`MovieWriter`). libx265 3.5 cannot be given the message itself: it keeps each of its
/// reused frames' payload buffer at the size of the first message it carried and copies later,
/// longer ones into it (x265's own open fix "crash when SEI length is variable"; FFmpeg tickets
/// 9666 and 10085), so a provenance record that grew (frame 10, 100, a longer pts) overran the
/// heap and aborted the process after about 25 frames (issue 40).
///
/// H.264 (ITU-T H.264 7.3.2.3 sei_rbsp, 7.4.1.2.3 order of NAL units) and HEVC (ITU-T H.265
/// 7.3.5, 7.4.2.4.4: a prefix SEI precedes the first VCL NAL unit of its access unit): the SEI
/// NAL unit is put right before the access unit's first VCL NAL unit.
public enum UserDataSEI {
    /// Which standard's NAL unit headers the access units have.
    public enum Syntax: Equatable, Sendable {
        case h264, hevc

        /// The header of an SEI NAL unit holding our message (HEVC: a prefix SEI, type 39,
        /// layer 0, temporal id 0).
        var seiHeader: [UInt8] { self == .h264 ? [0x06] : [39 << 1, 0x01] }

        /// The NAL unit type of a unit starting with `header`.
        func type(_ header: UInt8) -> UInt8 { self == .h264 ? header & 0x1f : (header >> 1) & 0x3f }

        /// Whether a unit of that type holds a picture's slice (H.264: 1 to 5; HEVC: 0 to 31).
        func isPicture(_ type: UInt8) -> Bool { self == .h264 ? (1...5).contains(type) : type <= 31 }

        /// Whether a unit of that type is an SEI (HEVC: prefix SEI).
        func isSEI(_ type: UInt8) -> Bool { self == .h264 ? type == 6 : type == 39 }
    }

    /// How NAL units are delimited in a packet: by a big-endian length of `lengthSize` bytes
    /// (MP4, MOV, Matroska: avcC extradata) or by start codes (Annex B: MPEG-TS, raw .h264).
    public enum Framing: Equatable, Sendable {
        case lengthPrefixed(Int)
        case annexB

        /// From the stream's extradata: an avcC record (version 1) gives its length size; no
        /// record (or SPS/PPS in start codes) means Annex B.
        public init(extradata: [UInt8]) {
            if extradata.count >= 7, extradata[0] == 1 { self = .lengthPrefixed(Int(extradata[4] & 3) + 1) } else { self = .annexB }
        }
    }

    public enum Problem: Error, Equatable { case malformed }

    /// The NAL units of `au` (their bytes, header first, without lengths or start codes).
    static func units(_ au: [UInt8], framing: Framing) throws -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        switch framing {
        case .lengthPrefixed(let n):
            var i = 0
            while i < au.count {
                guard i + n <= au.count else { throw Problem.malformed }
                let length = au[i..<(i + n)].reduce(0) { $0 << 8 | Int($1) }
                i += n
                guard length > 0, i + length <= au.count else { throw Problem.malformed }
                units.append(au[i..<(i + length)])
                i += length
            }
        case .annexB:
            // Start codes 00 00 01 (00 00 00 01 is a zero byte then one); a unit's trailing zeros
            // belong to the next start code.
            var starts: [Int] = [], i = 0
            while i + 2 < au.count {
                if au[i] == 0, au[i + 1] == 0, au[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
            }
            for (k, s) in starts.enumerated() {
                var e = k + 1 < starts.count ? starts[k + 1] - 3 : au.count
                while e > s, au[e - 1] == 0 { e -= 1 }
                if e > s { units.append(au[s..<e]) }
            }
            guard !units.isEmpty else { throw Problem.malformed }
        }
        return units
    }

    /// One SEI NAL unit holding one user-data-unregistered message with `payload` (16-byte UUID
    /// then data), emulation prevention applied.
    public static func seiNAL(payload: [UInt8], syntax: Syntax = .h264) -> [UInt8] {
        var rbsp: [UInt8] = [5]  // payload type 5: user data unregistered
        var size = payload.count
        while size >= 255 { rbsp.append(255); size -= 255 }
        rbsp.append(UInt8(size))
        rbsp += payload
        rbsp.append(0x80)  // rbsp_trailing_bits
        var nal = syntax.seiHeader
        nal.reserveCapacity(rbsp.count + rbsp.count / 64 + 2)
        var zeros = 0
        for b in rbsp {
            if zeros >= 2 && b <= 3 { nal.append(3); zeros = 0 }
            nal.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return nal
    }

    /// True for an SEI NAL unit whose only message is user data with `uuid` (one put there
    /// before: a clip that is itself Lockstep's output).
    static func isOnlyUserData(_ unit: ArraySlice<UInt8>, uuid: [UInt8], syntax: Syntax) -> Bool {
        guard let header = unit.first, syntax.isSEI(syntax.type(header)) else { return false }
        // Remove emulation prevention bytes (00 00 03).
        var rbsp: [UInt8] = [], zeros = 0
        for b in unit.dropFirst(syntax.seiHeader.count) {
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            rbsp.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        var i = 0
        func number() -> Int? {
            var v = 0
            while i < rbsp.count, rbsp[i] == 255 { v += 255; i += 1 }
            guard i < rbsp.count else { return nil }
            v += Int(rbsp[i]); i += 1
            return v
        }
        guard number() == 5, let size = number(), size >= uuid.count, i + size < rbsp.count,
            Array(rbsp[i..<(i + uuid.count)]) == uuid
        else { return false }
        // Nothing after the message but the trailing bits.
        return rbsp[(i + size)...].first == 0x80 && rbsp[(i + size + 1)...].allSatisfy { $0 == 0 }
    }

    /// Where the first picture NAL unit of an Annex B access unit starts (its start code's first
    /// byte), read in place: the encoder's packets get their SEI there without being copied.
    /// nil when the unit list holds no picture.
    public static func firstPictureStartCode(in au: UnsafeBufferPointer<UInt8>, syntax: Syntax) -> Int? {
        var i = 0
        while i + 3 < au.count {
            if au[i] == 0, au[i + 1] == 0, au[i + 2] == 1 {
                if syntax.isPicture(syntax.type(au[i + 3])) { return i > 0 && au[i - 1] == 0 ? i - 1 : i }
                i += 3
            } else {
                i += 1
            }
        }
        return nil
    }

    /// `au` with `payload` as its user-data SEI: any SEI that held only user data with the same
    /// UUID is dropped (the clip's own provenance, which would name other frames), the new one
    /// goes right before the first VCL NAL unit; every other unit is kept byte for byte, in the
    /// same framing. Throws `Problem.malformed` when the units do not parse or there is no picture.
    public static func replacingUserData(in au: [UInt8], framing: Framing, payload: [UInt8], syntax: Syntax = .h264) throws -> [UInt8] {
        let uuid = Array(payload.prefix(16))
        let sei = seiNAL(payload: payload, syntax: syntax)
        var out: [UInt8] = []
        out.reserveCapacity(au.count + sei.count + 8)
        func put(_ unit: some Collection<UInt8>) {
            switch framing {
            case .lengthPrefixed(let n):
                for k in (0..<n).reversed() { out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k))) }
            case .annexB:
                out += [0, 0, 0, 1]
            }
            out += unit
        }
        var placed = false
        for unit in try units(au, framing: framing) {
            let type = syntax.type(unit.first!)
            if isOnlyUserData(unit, uuid: uuid, syntax: syntax) { continue }
            if !placed && syntax.isPicture(type) { put(sei); placed = true }
            put(unit)
        }
        guard placed else { throw Problem.malformed }
        return out
    }
}
