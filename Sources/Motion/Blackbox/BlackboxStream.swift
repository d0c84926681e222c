/// A cursor over one blackbox log's bytes and the value encodings Betaflight, INAV and
/// Cleanflight write. Reading past `end` yields 0 and sets `eof`, as the reference readers' EOF
/// does: the frame loop then calls the frame truncated. Written from blackbox-tools
/// (github:betaflight/blackbox-tools src/stream.c streamReadUnsignedVB/SignedVB, src/decoders.c
/// streamReadTag2_3S32, streamReadTag8_4S16_v1/_v2, streamReadTag8_8SVB) and the log viewer's
/// js/datastream.js (readTag2_3SVariable, which blackbox-tools lacks: Betaflight 4.3+ writes it).
struct BlackboxStream {
    let bytes: UnsafeBufferPointer<UInt8>
    var pos: Int
    var end: Int
    var eof = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) { self.bytes = bytes; pos = from; end = to }

    @inline(__always) mutating func byte() -> UInt32 {
        guard pos < end else { eof = true; return 0 }
        defer { pos += 1 }
        return UInt32(bytes[pos])
    }

    /// Seven bits a byte, low first, at most five bytes; a longer one is 0 (stream.c).
    @inline(__always) mutating func unsignedVB() -> UInt32 {
        var result: UInt32 = 0
        var shift: UInt32 = 0
        for _ in 0..<5 {
            guard pos < end else { eof = true; return 0 }
            let c = UInt32(bytes[pos])
            pos += 1
            result |= (c & 0x7F) << shift  // bits past 32 fall off, as in C
            if c < 128 { return result }
            shift += 7
        }
        return 0
    }

    /// ZigZag: 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
    @inline(__always) mutating func signedVB() -> Int64 {
        let u = unsignedVB()
        return Int64(Int32(bitPattern: (u >> 1) ^ (0 &- (u & 1))))
    }

    @inline(__always) static func signExtend(_ v: UInt32, bits: UInt32) -> Int64 {
        let shift = 32 - bits
        return Int64(Int32(bitPattern: v << shift) >> Int32(shift))
    }

    /// Three values behind a 2-bit selector: 2, 4 or 6 bits each, or 8/16/24/32 bits each by a
    /// per-field selector (decoders.c streamReadTag2_3S32).
    mutating func tag2_3S32(into v: UnsafeMutablePointer<Int64>) {
        var lead = byte()
        switch lead >> 6 {
        case 0:
            v[0] = Self.signExtend((lead >> 4) & 3, bits: 2)
            v[1] = Self.signExtend((lead >> 2) & 3, bits: 2)
            v[2] = Self.signExtend(lead & 3, bits: 2)
        case 1:
            let a = Self.signExtend(lead & 0x0F, bits: 4)
            let b = byte()
            v[0] = a
            v[1] = Self.signExtend(b >> 4, bits: 4)
            v[2] = Self.signExtend(b & 0x0F, bits: 4)
        case 2:
            let a = Self.signExtend(lead & 0x3F, bits: 6)
            let b = Self.signExtend(byte() & 0x3F, bits: 6)
            v[0] = a
            v[1] = b
            v[2] = Self.signExtend(byte() & 0x3F, bits: 6)
        default:
            for i in 0..<3 {
                v[i] = sized(lead & 3)
                lead >>= 2
            }
        }
    }

    /// 8, 16, 24 or 32 bits, little-endian, sign-extended (the last case of both tag2 encodings).
    @inline(__always) private mutating func sized(_ selector: UInt32) -> Int64 {
        switch selector {
        case 0: return Self.signExtend(byte(), bits: 8)
        case 1: let a = byte(); return Self.signExtend(a | byte() << 8, bits: 16)
        case 2: let a = byte(), b = byte(); return Self.signExtend(a | b << 8 | byte() << 16, bits: 24)
        default: let a = byte(), b = byte(), c = byte(); return Int64(Int32(bitPattern: a | b << 8 | c << 16 | byte() << 24))
        }
    }

    /// Like tag2_3S32 but with 2/2/2, 5/5/4 and 8/7/7 bit layouts (datastream.js readTag2_3SVariable).
    mutating func tag2_3SVariable(into v: UnsafeMutablePointer<Int64>) {
        var lead = byte()
        switch lead >> 6 {
        case 0:
            v[0] = Self.signExtend((lead >> 4) & 3, bits: 2)
            v[1] = Self.signExtend((lead >> 2) & 3, bits: 2)
            v[2] = Self.signExtend(lead & 3, bits: 2)
        case 1:
            let a = Self.signExtend((lead & 0x3E) >> 1, bits: 5)
            let b = byte()
            v[0] = a
            v[1] = Self.signExtend(((lead & 1) << 4) | ((b & 0xF0) >> 4), bits: 5)
            v[2] = Self.signExtend(b & 0x0F, bits: 4)
        case 2:
            let b = byte()
            let a = Self.signExtend(((lead & 0x3F) << 2) | ((b & 0xC0) >> 6), bits: 8)
            let c = byte()
            v[0] = a
            v[1] = Self.signExtend(((b & 0x3F) << 1) | ((c & 0x80) >> 7), bits: 7)
            v[2] = Self.signExtend(c & 0x7F, bits: 7)
        default:
            for i in 0..<3 {
                v[i] = sized(lead & 3)
                lead >>= 2
            }
        }
    }

    /// Four values behind a selector byte of 2-bit sizes (0, 4, 8 or 16 bits). Data version 1
    /// packs a 4-bit field with the next one in one byte, low nibble first (decoders.c
    /// streamReadTag8_4S16_v1); version 2 packs nibbles high first and lets 8- and 16-bit values
    /// straddle bytes (streamReadTag8_4S16_v2).
    mutating func tag8_4S16(into out: UnsafeMutablePointer<Int64>, version: Int) {
        var selector = byte()
        if version < 2 {
            var i = 0
            while i < 4 {
                switch selector & 3 {
                case 0: out[i] = 0
                case 1:
                    let c = byte()
                    out[i] = Self.signExtend(c & 0x0F, bits: 4)
                    i += 1
                    selector >>= 2
                    if i < 4 { out[i] = Self.signExtend(c >> 4, bits: 4) }
                case 2: out[i] = Self.signExtend(byte(), bits: 8)
                default: let a = byte(); out[i] = Self.signExtend(a | byte() << 8, bits: 16)
                }
                selector >>= 2
                i += 1
            }
        } else {
            var buffer: UInt32 = 0
            var half = false  // true when the low nibble of `buffer` is still unread
            for i in 0..<4 {
                switch selector & 3 {
                case 0: out[i] = 0
                case 1:
                    if !half { buffer = byte(); out[i] = Self.signExtend(buffer >> 4, bits: 4); half = true } else { out[i] = Self.signExtend(buffer & 0x0F, bits: 4); half = false }
                case 2:
                    if !half {
                        out[i] = Self.signExtend(byte(), bits: 8)
                    } else {
                        let high = (buffer & 0x0F) << 4
                        buffer = byte()
                        out[i] = Self.signExtend(high | buffer >> 4, bits: 8)
                    }
                default:
                    if !half {
                        let a = byte(); out[i] = Self.signExtend(a << 8 | byte(), bits: 16)
                    } else {
                        let a = byte(), b = byte()
                        out[i] = Self.signExtend(((buffer & 0x0F) << 12) | a << 4 | b >> 4, bits: 16)
                        buffer = b
                    }
                }
                selector >>= 2
            }
        }
    }
}
