/// The payload both codes carry: a 20-bit frame number and its CRC-16 (CCITT, 0x1021), 36 bits,
/// least significant first. The checksum makes a misread cell (or a stretch of footage that
/// happens to look like a code) a rejected word rather than a wrong frame number.
public enum CodeWord {
    public static let numberBits = 20
    public static let checkBits = 16
    public static let bits = numberBits + checkBits
    /// Frame numbers wrap here (9.7 hours at 30 fps).
    public static let modulus = 1 << numberBits

    public static func encode(_ number: Int) -> UInt64 {
        let n = UInt64(number & (modulus - 1))
        return n | UInt64(crc(n)) << UInt64(numberBits)
    }

    /// The frame number, or nil when the checksum does not match.
    public static func decode(_ word: UInt64) -> Int? {
        let n = word & UInt64(modulus - 1)
        let c = UInt16(truncatingIfNeeded: word >> UInt64(numberBits))
        return crc(n) == c ? Int(n) : nil
    }

    /// CRC-16/CCITT-FALSE over the number's 20 bits, most significant first.
    static func crc(_ n: UInt64) -> UInt16 {
        var c: UInt16 = 0xFFFF
        for i in stride(from: numberBits - 1, through: 0, by: -1) {
            let bit = UInt16((n >> UInt64(i)) & 1)
            let top = (c >> 15) & 1
            c <<= 1
            if top ^ bit == 1 { c ^= 0x1021 }
        }
        return c
    }
}
