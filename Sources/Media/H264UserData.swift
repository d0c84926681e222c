/// Lockstep's provenance put into H.264 access units that are copied, not encoded (`concat
/// --copy`): the same "user data unregistered" SEI message (payload type 5) that libx264 writes
/// for the encoding path (`udu_sei`), so FFmpeg's h264 decoder hands it back as the frame's
/// AV_FRAME_DATA_SEI_UNREGISTERED side data and `verify` reads both alike. Pure bytes, no FFmpeg.
/// H.264 (ITU-T H.264 7.3.2.3 sei_rbsp, 7.4.1.2.3 order of NAL units): an SEI NAL unit goes
/// before the access unit's first VCL NAL unit (types 1 to 5), so it is put right there.
public enum H264UserData {
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
    public static func seiNAL(payload: [UInt8]) -> [UInt8] {
        var rbsp: [UInt8] = [5]  // payload type 5: user data unregistered
        var size = payload.count
        while size >= 255 { rbsp.append(255); size -= 255 }
        rbsp.append(UInt8(size))
        rbsp += payload
        rbsp.append(0x80)  // rbsp_trailing_bits
        var nal: [UInt8] = [0x06]  // forbidden 0, nal_ref_idc 0, type 6 (SEI)
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
    static func isOnlyUserData(_ unit: ArraySlice<UInt8>, uuid: [UInt8]) -> Bool {
        guard let header = unit.first, header & 0x1f == 6 else { return false }
        // Remove emulation prevention bytes (00 00 03).
        var rbsp: [UInt8] = [], zeros = 0
        for b in unit.dropFirst() {
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

    /// `au` with `payload` as its user-data SEI: any SEI that held only user data with the same
    /// UUID is dropped (the clip's own provenance, which would name other frames), the new one
    /// goes right before the first VCL NAL unit; every other unit is kept byte for byte, in the
    /// same framing. Throws `Problem.malformed` when the units do not parse or there is no picture.
    public static func replacingUserData(in au: [UInt8], framing: Framing, payload: [UInt8]) throws -> [UInt8] {
        let uuid = Array(payload.prefix(16))
        let sei = seiNAL(payload: payload)
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
            let type = unit.first! & 0x1f
            if isOnlyUserData(unit, uuid: uuid) { continue }
            if !placed && (1...5).contains(type) { put(sei); placed = true }
            put(unit)
        }
        guard placed else { throw Problem.malformed }
        return out
    }
}
