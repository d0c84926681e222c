/// A 3D colour lookup table from a `.cube` file (Adobe/Resolve's text format, what colourists
/// exchange): `LUT_3D_SIZE N`, optional `TITLE`, `DOMAIN_MIN`/`DOMAIN_MAX`, `#` comments, then
/// N^3 lines of "R G B" with red changing fastest. Parsed from text here (the pure core); the
/// job reads the file.
public struct CubeLUT: Sendable, Equatable {
    public let size: Int
    public let domainMin: SIMD3<Float>, domainMax: SIMD3<Float>
    /// size^3 entries, index r + size * (g + size * b).
    public let table: [SIMD3<Float>]

    public init(size: Int, table: [SIMD3<Float>], domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one) {
        precondition(size >= 2 && table.count == size * size * size)
        self.size = size; self.table = table; self.domainMin = domainMin; self.domainMax = domainMax
    }

    /// A piece of a bad line as a message shows it: 40 characters at most, control characters as
    /// `\u{1B}` (a line may be megabytes long, or carry escape sequences for the user's terminal).
    static func shown(_ text: some StringProtocol) -> String {
        let scalars = text.unicodeScalars
        let cut = scalars.prefix(40).map { c in
            c.value < 0x20 || (0x7F...0x9F).contains(c.value) ? "\\u{\(String(c.value, radix: 16, uppercase: true))}" : String(c)
        }.joined()
        return scalars.count > 40 ? cut + "..." : cut
    }

    /// `name` is how messages name the file: "NAME:LINE: why".
    public init(parsing text: String, name: String) throws {
        var size: Int?
        var lo = SIMD3<Float>.zero, hi = SIMD3<Float>.one
        var table: [SIMD3<Float>] = []
        var lineNumber = 0
        func fail(_ why: String) -> FilterError { FilterError("\(name):\(lineNumber): \(why)") }
        func triple(_ fields: ArraySlice<Substring>, _ what: String) throws -> SIMD3<Float> {
            // Decimal characters only: Float(_:) reads "0x10" as hexadecimal and stops at a NUL
            // (strtof), so "0.5\0 9 9" was taken as 0.5 9 9 and the job wrote a movie.
            let v = fields.compactMap { f in f.allSatisfy { "0123456789+-.eE".contains($0) } ? Float(f) : nil }
            guard fields.count == 3, v.count == 3, v.allSatisfy(\.isFinite) else {
                throw fail("\(what) needs three numbers; got \"\(Self.shown(fields.joined(separator: " ")))\"")
            }
            return SIMD3(v[0], v[1], v[2])
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let key = fields.first else { continue }
            switch key {
            case "TITLE": continue
            case "LUT_3D_SIZE":
                guard size == nil else { throw fail("LUT_3D_SIZE given twice") }
                guard fields.count == 2, let n = Int(fields[1]), (2...256).contains(n) else {
                    throw fail("LUT_3D_SIZE must be an integer from 2 to 256; got \"\(Self.shown(fields.dropFirst().joined(separator: " ")))\"")
                }
                size = n
                table.reserveCapacity(n * n * n)
            case "DOMAIN_MIN": lo = try triple(fields.dropFirst(), "DOMAIN_MIN")
            case "DOMAIN_MAX": hi = try triple(fields.dropFirst(), "DOMAIN_MAX")
            case "LUT_1D_SIZE": throw fail("a 1D LUT; only 3D LUTs (LUT_3D_SIZE) are supported")
            default:
                guard let first = key.first, first.isNumber || first == "-" || first == "." || first == "+" else {
                    throw fail("unknown keyword \"\(Self.shown(key))\"")
                }
                guard let n = size else { throw fail("a table line before LUT_3D_SIZE") }
                guard table.count < n * n * n else { throw fail("more than \(n * n * n) table lines (LUT_3D_SIZE \(n))") }
                table.append(try triple(fields[...], "a table line"))
            }
        }
        guard let n = size else { throw FilterError("\(name): no LUT_3D_SIZE line; not a 3D .cube LUT") }
        guard table.count == n * n * n else {
            throw FilterError("\(name):\(lineNumber): the table ends after \(table.count) of \(n * n * n) lines (LUT_3D_SIZE \(n))")
        }
        guard hi.x > lo.x && hi.y > lo.y && hi.z > lo.z else { throw FilterError("\(name): DOMAIN_MAX must be above DOMAIN_MIN in every channel") }
        self.init(size: n, table: table, domainMin: lo, domainMax: hi)
    }

    public enum Interpolation: String, Sendable { case trilinear, tetrahedral }

    @inline(__always) func at(_ r: Int, _ g: Int, _ b: Int) -> SIMD3<Float> { table[r + size * (g + size * b)] }

    public func lookup(_ c: SIMD3<Float>, _ interpolation: Interpolation) -> SIMD3<Float> {
        let n = Float(size - 1)
        var p = (c - domainMin) / (domainMax - domainMin) * n
        p = SIMD3(max(0, min(n, p.x)), max(0, min(n, p.y)), max(0, min(n, p.z)))
        let r0 = min(size - 2, Int(p.x)), g0 = min(size - 2, Int(p.y)), b0 = min(size - 2, Int(p.z))
        let d = p - SIMD3(Float(r0), Float(g0), Float(b0))
        let c000 = at(r0, g0, b0), c111 = at(r0 + 1, g0 + 1, b0 + 1)
        switch interpolation {
        case .trilinear:
            let c100 = at(r0 + 1, g0, b0), c010 = at(r0, g0 + 1, b0), c001 = at(r0, g0, b0 + 1)
            let c110 = at(r0 + 1, g0 + 1, b0), c101 = at(r0 + 1, g0, b0 + 1), c011 = at(r0, g0 + 1, b0 + 1)
            let c00 = c000 + (c100 - c000) * d.x, c10 = c010 + (c110 - c010) * d.x
            let c01 = c001 + (c101 - c001) * d.x, c11 = c011 + (c111 - c011) * d.x
            let c0 = c00 + (c10 - c00) * d.y, c1 = c01 + (c11 - c01) * d.y
            return c0 + (c1 - c0) * d.z
        case .tetrahedral:
            // The cube split into six tetrahedra along its main diagonal, as FFmpeg's lut3d.
            let (x, y, z) = (d.x, d.y, d.z)
            if x > y {
                if y > z {
                    let a = at(r0 + 1, g0, b0), b = at(r0 + 1, g0 + 1, b0)
                    return (1 - x) * c000 + (x - y) * a + (y - z) * b + z * c111
                } else if x > z {
                    let a = at(r0 + 1, g0, b0), b = at(r0 + 1, g0, b0 + 1)
                    return (1 - x) * c000 + (x - z) * a + (z - y) * b + y * c111
                } else {
                    let a = at(r0, g0, b0 + 1), b = at(r0 + 1, g0, b0 + 1)
                    return (1 - z) * c000 + (z - x) * a + (x - y) * b + y * c111
                }
            } else {
                if z > y {
                    let a = at(r0, g0, b0 + 1), b = at(r0, g0 + 1, b0 + 1)
                    return (1 - z) * c000 + (z - y) * a + (y - x) * b + x * c111
                } else if z > x {
                    let a = at(r0, g0 + 1, b0), b = at(r0, g0 + 1, b0 + 1)
                    return (1 - y) * c000 + (y - z) * a + (z - x) * b + x * c111
                } else {
                    let a = at(r0, g0 + 1, b0), b = at(r0 + 1, g0 + 1, b0)
                    return (1 - y) * c000 + (y - x) * a + (x - z) * b + z * c111
                }
            }
        }
    }
}

/// A 3D LUT as a colour function. The kernel's vector path works out eight pixels' cells and
/// weights at once and reads each corner as one 16-byte load (`LUTTable`); the arithmetic is
/// `CubeLUT.lookup`'s, in the same order.
public struct LUTTransform: RGBTransform {
    let lut: CubeLUT, interpolation: CubeLUT.Interpolation
    let packed: LUTTable
    public init(_ lut: CubeLUT, _ interpolation: CubeLUT.Interpolation) {
        self.lut = lut; self.interpolation = interpolation; packed = LUTTable(lut)
    }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { lut.lookup(c, interpolation) }

    @inline(__always) public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        let size = lut.size, n = Float(size - 1), top = Float(size - 2)
        let lo = lut.domainMin, span = lut.domainMax - lut.domainMin
        let (ri, dr) = Self.cell(r, lo.x, span.x, n, top), (gi, dg) = Self.cell(g, lo.y, span.y, n, top)
        let (bi, db) = Self.cell(b, lo.z, span.z, n, top)
        let s = Int32(size)
        let base = ri &+ s &* (gi &+ s &* bi)
        let t = packed.entries, sy = size, sz = size * size
        let outR: Vector8, outG: Vector8, outB: Vector8
        switch interpolation {
        case .trilinear:
            // Lane by lane, each lane's index a constant: a loop writing `out[i]` stores the
            // vector, writes a lane and reloads it, a store-forwarding stall per pixel.
            @inline(__always) func lane(_ i: Int) -> SIMD4<Float> {
                let p = t + Int(base[i]), x = dr[i], y = dg[i], z = db[i]
                let c000 = p[0], c100 = p[1], c010 = p[sy], c110 = p[sy + 1]
                let c001 = p[sz], c101 = p[sz + 1], c011 = p[sz + sy], c111 = p[sz + sy + 1]
                let c00 = c000 + (c100 - c000) * x, c10 = c010 + (c110 - c010) * x
                let c01 = c001 + (c101 - c001) * x, c11 = c011 + (c111 - c011) * x
                let c0 = c00 + (c10 - c00) * y, c1 = c01 + (c11 - c01) * y
                return c0 + (c1 - c0) * z
            }
            (outR, outG, outB) = Self.transpose(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7))
        case .tetrahedral:
            // The tetrahedron is fixed by the order of the three fractions (FFmpeg's six cases):
            // from the cell's corner, a step along the largest, then the next, then the last.
            // Sorted here without branches, each fraction carrying its axis's stride.
            var v0 = dr, v1 = dg, v2 = db
            var s0 = Vector8(repeating: 1), s1 = Vector8(repeating: Float(sy)), s2 = Vector8(repeating: Float(sz))
            Self.order(&v0, &s0, &v1, &s1); Self.order(&v1, &s1, &v2, &s2); Self.order(&v0, &s0, &v1, &s1)
            let w0 = 1 - v0, w1 = v0 - v1, w2 = v1 - v2
            let a = VectorMath.roundEven(s0).1, ab = VectorMath.roundEven(s0 + s1).1, diagonal = 1 + sy + sz
            @inline(__always) func lane(_ i: Int) -> SIMD4<Float> {
                let p = t + Int(base[i])
                return w0[i] * p[0] + w1[i] * p[Int(a[i])] + w2[i] * p[Int(ab[i])] + v2[i] * p[diagonal]
            }
            (outR, outG, outB) = Self.transpose(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7))
        }
        r = outR; g = outG; b = outB
    }

    /// The cell (its corner nearest black) and the position inside it, for one channel.
    @inline(__always) static func cell(_ c: Vector8, _ lo: Float, _ span: Float, _ n: Float, _ top: Float) -> (IntVector8, Vector8) {
        let p = VectorMath.clamp((c - lo) / span * n, 0, n)
        let (f, i) = VectorMath.floor(VectorMath.min(p, Vector8(repeating: top)))
        return (i, p - f)
    }

    /// Eight (r, g, b, _) into r, g and b lanes.
    @inline(__always) static func transpose(
        _ c0: SIMD4<Float>, _ c1: SIMD4<Float>, _ c2: SIMD4<Float>, _ c3: SIMD4<Float>,
        _ c4: SIMD4<Float>, _ c5: SIMD4<Float>, _ c6: SIMD4<Float>, _ c7: SIMD4<Float>
    ) -> (Vector8, Vector8, Vector8) {
        (
            Vector8(c0.x, c1.x, c2.x, c3.x, c4.x, c5.x, c6.x, c7.x), Vector8(c0.y, c1.y, c2.y, c3.y, c4.y, c5.y, c6.y, c7.y),
            Vector8(c0.z, c1.z, c2.z, c3.z, c4.z, c5.z, c6.z, c7.z)
        )
    }

    /// a >= b after, each carrying its stride along.
    @inline(__always) static func order(_ a: inout Vector8, _ sa: inout Vector8, _ b: inout Vector8, _ sb: inout Vector8) {
        let m = a .< b
        (a, b) = (VectorMath.select(m, b, a), VectorMath.select(m, a, b))
        (sa, sb) = (VectorMath.select(m, sb, sa), VectorMath.select(m, sa, sb))
    }
}

/// A `CubeLUT`'s entries as (r, g, b, 0), 16 bytes each: a corner is one aligned load. Made with
/// the transform, never per frame.
final class LUTTable {
    let entries: UnsafeMutablePointer<SIMD4<Float>>
    init(_ lut: CubeLUT) {
        entries = .allocate(capacity: lut.table.count)
        for (i, c) in lut.table.enumerated() { (entries + i).initialize(to: SIMD4(c, 0)) }
    }
    deinit { entries.deallocate() }
}
