/// GoPro's GPMF (GoPro Metadata Format) key-length-value tree, parsed in pure Swift.
///
/// Each item is an 8-byte header, `KEY(4) TYPE(1) SIZE(1) REPEAT(2, big-endian)`, then
/// `SIZE * REPEAT` bytes of big-endian data padded to a multiple of 4. TYPE 0 nests more items
/// (DEVC holds STRMs, a STRM holds its properties and then its data). See gopro/gpmf-parser's
/// GPMF_common.h and docs/README.md ("Alignment and Storage"). Hostile input gives an error,
/// never a trap: every length is checked against what is left, nesting is bounded.
public enum GPMF {
    /// The deepest nesting accepted (GoPro uses 2: DEVC > STRM); deeper is treated as damage.
    public static let maxDepth = 8

    /// Parses a whole payload (one `gpmd` packet) into its top-level items.
    public static func parse(_ bytes: [UInt8]) throws -> [GPMFItem] {
        try parse(bytes, range: 0..<bytes.count, depth: 0)
    }

    static func parse(_ bytes: [UInt8], range: Range<Int>, depth: Int) throws -> [GPMFItem] {
        guard depth <= maxDepth else { throw GPMFError("nesting deeper than \(maxDepth) levels") }
        var items: [GPMFItem] = []
        var at = range.lowerBound
        while at < range.upperBound {
            let left = range.upperBound - at
            // Payloads end on a 32-bit boundary and may be padded with zeros: a zero key ends them.
            if bytes[at..<range.upperBound].prefix(4).allSatisfy({ $0 == 0 }) { break }
            guard left >= 8 else { throw GPMFError("truncated item header at byte \(at) (\(left) bytes left, 8 needed)") }
            let key = FourCC(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3])
            guard key.isValid else { throw GPMFError("bad key \(key.debugText) at byte \(at)") }
            let type = bytes[at + 4]
            let size = Int(bytes[at + 5])
            let repeatCount = Int(bytes[at + 6]) << 8 | Int(bytes[at + 7])
            let length = size * repeatCount
            let padded = (length + 3) & ~3
            let dataStart = at + 8
            guard length <= range.upperBound - dataStart else {
                throw GPMFError("\(key) at byte \(at) claims \(length) bytes, only \(range.upperBound - dataStart) left")
            }
            let dataRange = dataStart..<(dataStart + length)
            var item = GPMFItem(key: key, type: type, structSize: size, repeatCount: repeatCount, data: Array(bytes[dataRange]))
            if type == 0 {
                item.children = try parse(bytes, range: dataRange, depth: depth + 1)
            }
            items.append(item)
            // The last item's padding may be cut off at the end of a payload: tolerated.
            at = min(dataStart + padded, range.upperBound)
        }
        return items
    }
}

/// A GPMF parsing failure: what is wrong and where, one line.
public struct GPMFError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// A GPMF key: four ASCII characters, stored as the bytes appear in the file.
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var bytes: (UInt8, UInt8, UInt8, UInt8)
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) { bytes = (a, b, c, d) }
    public init(stringLiteral s: String) {
        let u = Array(s.utf8) + [32, 32, 32, 32]
        bytes = (u[0], u[1], u[2], u[3])
    }
    public static func == (a: FourCC, b: FourCC) -> Bool { a.bytes == b.bytes }
    public func hash(into h: inout Hasher) { h.combine(bytes.0); h.combine(bytes.1); h.combine(bytes.2); h.combine(bytes.3) }
    /// GPMF keys are letters, digits and spaces (GPMF_VALID_FOURCC).
    var isValid: Bool {
        [bytes.0, bytes.1, bytes.2, bytes.3].allSatisfy { (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 32 }
    }
    public var description: String { String(decoding: [bytes.0, bytes.1, bytes.2, bytes.3], as: UTF8.self) }
    var debugText: String { [bytes.0, bytes.1, bytes.2, bytes.3].map { String(format2hex: $0) }.joined() }
}

extension String {
    init(format2hex b: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}

/// One KLV item: its header, its unpadded data, and for a nest (type 0) its children.
public struct GPMFItem: Sendable, Equatable {
    public var key: FourCC
    /// The type character ('s', 'f', 'c', '?', ...) or 0 for a nest.
    public var type: UInt8
    public var structSize: Int
    public var repeatCount: Int
    public var data: [UInt8]
    public var children: [GPMFItem] = []

    public init(key: FourCC, type: UInt8, structSize: Int, repeatCount: Int, data: [UInt8], children: [GPMFItem] = []) {
        self.key = key; self.type = type; self.structSize = structSize; self.repeatCount = repeatCount
        self.data = data; self.children = children
    }

    public var isNest: Bool { type == 0 }

    /// Text of a 'c' (ASCII) or 'u' (UTF-8) item, zero padding removed.
    public var string: String? {
        guard type == UInt8(ascii: "c") || type == UInt8(ascii: "u") else { return nil }
        let end = data.firstIndex(of: 0) ?? data.count
        return String(decoding: data[..<end], as: UTF8.self)
    }

    /// The item's numbers, row by row (one row per repeat), each element converted to Double.
    /// `elementTypes` describes a '?' (complex) item's struct, from the stream's TYPE.
    public func rows(elementTypes: [UInt8]? = nil) throws -> [[Double]] {
        let types: [UInt8]
        if type == UInt8(ascii: "?") {
            guard let t = elementTypes, !t.isEmpty else { throw GPMFError("\(key) is a complex structure without a TYPE") }
            types = t
        } else {
            guard let size = GPMFItem.elementSize(type) else {
                throw GPMFError("\(key) has type '\(String(format2hex: type))', not a number type")
            }
            guard structSize % size == 0 else {
                throw GPMFError("\(key): struct size \(structSize) is not a multiple of its type's size \(size)")
            }
            types = Array(repeating: type, count: structSize / size)
        }
        var rowSize = 0
        for t in types {
            guard let s = GPMFItem.elementSize(t) else { throw GPMFError("\(key): TYPE holds '\(String(format2hex: t))', not a number type") }
            rowSize += s
        }
        guard rowSize == structSize else {
            throw GPMFError("\(key): TYPE describes \(rowSize) bytes per sample, the item has \(structSize)")
        }
        var out: [[Double]] = []
        out.reserveCapacity(repeatCount)
        var at = 0
        for _ in 0..<repeatCount {
            var row: [Double] = []
            row.reserveCapacity(types.count)
            for t in types {
                row.append(GPMFItem.number(t, data, at))
                at += GPMFItem.elementSize(t)!
            }
            out.append(row)
        }
        return out
    }

    /// All the item's numbers in order (rows flattened).
    public func numbers(elementTypes: [UInt8]? = nil) throws -> [Double] { try rows(elementTypes: elementTypes).flatMap { $0 } }

    static func elementSize(_ t: UInt8) -> Int? {
        switch t {
        case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "c"): return 1
        case UInt8(ascii: "s"), UInt8(ascii: "S"): return 2
        case UInt8(ascii: "l"), UInt8(ascii: "L"), UInt8(ascii: "f"), UInt8(ascii: "q"), UInt8(ascii: "F"): return 4
        case UInt8(ascii: "d"), UInt8(ascii: "j"), UInt8(ascii: "J"), UInt8(ascii: "Q"): return 8
        default: return nil
        }
    }

    /// One big-endian element at `at` (the caller has checked the bounds).
    static func number(_ t: UInt8, _ d: [UInt8], _ at: Int) -> Double {
        func u(_ n: Int) -> UInt64 { (0..<n).reduce(UInt64(0)) { $0 << 8 | UInt64(d[at + $1]) } }
        switch t {
        case UInt8(ascii: "b"): return Double(Int8(bitPattern: d[at]))
        case UInt8(ascii: "B"), UInt8(ascii: "c"): return Double(d[at])
        case UInt8(ascii: "s"): return Double(Int16(bitPattern: UInt16(u(2))))
        case UInt8(ascii: "S"): return Double(UInt16(u(2)))
        case UInt8(ascii: "l"): return Double(Int32(bitPattern: UInt32(u(4))))
        case UInt8(ascii: "L"), UInt8(ascii: "F"): return Double(UInt32(u(4)))
        case UInt8(ascii: "f"): return Double(Float(bitPattern: UInt32(u(4))))
        case UInt8(ascii: "q"): return Double(Int32(bitPattern: UInt32(u(4)))) / 65536  // Q15.16
        case UInt8(ascii: "d"): return Double(bitPattern: u(8))
        case UInt8(ascii: "j"): return Double(Int64(bitPattern: u(8)))
        case UInt8(ascii: "J"): return Double(u(8))
        case UInt8(ascii: "Q"): return Double(Int64(bitPattern: u(8))) / 4294967296  // Q31.32
        default: return .nan
        }
    }

    /// A TYPE item's string as element types ("ffS" -> f, f, S); `[...]` array notation is expanded.
    public static func elementTypes(_ typeString: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(typeString.utf8)[...]
        while let c = chars.popFirst() {
            if c == UInt8(ascii: "[") {
                var n = 0
                while let d = chars.popFirst(), d != UInt8(ascii: "]") {
                    guard (48...57).contains(d), n < 100_000 else { throw GPMFError("TYPE \"\(typeString)\": bad array count") }
                    n = n * 10 + Int(d - 48)
                }
                guard let last = out.last, n >= 1 else { throw GPMFError("TYPE \"\(typeString)\": bad array") }
                // A struct is at most 255 bytes (the size field is one byte): no more elements than that.
                guard out.count + n - 1 <= 255 else { throw GPMFError("TYPE \"\(typeString)\" describes more than 255 elements") }
                out.append(contentsOf: repeatElement(last, count: n - 1))
            } else {
                guard out.count < 255 else { throw GPMFError("TYPE \"\(typeString)\" describes more than 255 elements") }
                out.append(c)
            }
        }
        return out
    }
}
