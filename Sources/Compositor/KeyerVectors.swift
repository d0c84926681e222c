import CVectors

/// The keyer's row kernels on eight lanes (`Vector8`, `VectorMath` in Vectors.swift).
///
/// Why this file: written as plain per-pixel loops, the matte and composite loops were not
/// vectorised by the compiler (a gather of the screen estimate per pixel, an interleave of even
/// and odd columns, a branch per pixel): 7.4-10.6 ms per 1080p frame. Here each step works on
/// eight chroma samples (sixteen luma pixels) at a time, even and odd luma columns in separate
/// lanes, the screen estimate is spread over a row once per chroma row, and the only branches are
/// per block of sixteen pixels (all foreground: copy, all background: copy, else compute).
///
/// Every lane computes the same Float operations, in the same order, as the scalar code that
/// handles a row's last few pixels (each kernel's tail loop), so the output does not depend on where a
/// pixel falls: the same bytes as before this file, on the hash harness of docs/compositing.md.
enum KeyerVectors {
    /// Whether `strengthRow`, `matteRow`, `smoothRow`, `compositeLuma`, `compositeChroma` and
    /// `ScreenEstimate.spreadRow` and `measure` run their blocks in C with AVX2 by default
    /// (`cvec_strength_row_avx2` etc., KeyerRows.h and KeyerComposite.h): the same bytes
    /// and floats, in fewer instructions than the lanes on a baseline x86-64 build (there each
    /// eight-lane operation is two SSE instructions). Tests pass `avx2: false` to compare the two.
    static let avx2 = ColorConvertKernel.processorHasAVX2

    /// 1 / 255 and 1 / 1020 as the scalar code rounds them.
    @inline(__always) static var inverse255: Float { 1 / 255 }
    @inline(__always) static var inverse1020: Float { 1 / 1020 }

    @inline(__always) static func word(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
    }

    @inline(__always) static func loadFloats(_ p: UnsafePointer<Float>) -> Vector8 {
        UnsafeRawPointer(p).loadUnaligned(as: Vector8.self)
    }

    @inline(__always) static func storeFloats(_ v: Vector8, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector8.self)
    }

    @inline(__always) static func bytes(_ p: UnsafePointer<UInt8>) -> Vector8 {
        VectorMath.float(VectorMath.widen(UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)))
    }

    /// Bytes 0, 2, 4, ... 14 from `p` (exactly sixteen bytes read), as Int32 lanes.
    @inline(__always) static func evenBytes(_ p: UnsafePointer<UInt8>) -> IntVector8 {
        let words = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Int32>.self)
        // Each 32-bit word holds two wanted bytes: bits 0-7 and 16-23. (A second load at p + 8
        // read eight bytes past the sixteen, past the plane's end on its last row.)
        let a = words & 0xFF, b = (words &>> 16) & 0xFF
        return IntVector8(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3])
    }

    @inline(__always) static func storeBytes(_ v: SIMD8<UInt8>, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<UInt8>.self)
    }

    @inline(__always) static func copy16(_ from: UnsafePointer<UInt8>, _ to: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(to).storeBytes(of: UnsafeRawPointer(from).loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
    }

    /// `clampByte` in every lane: clamped to 0...255, rounded half to even.
    @inline(__always) static func clampBytes(_ x: Vector8) -> SIMD8<UInt8> {
        VectorMath.narrow8(clampBits(x))
    }

    /// `clampByte` in the low byte of every lane (the rest is the rounding constant's).
    @inline(__always) static func clampBits(_ x: Vector8) -> IntVector8 {
        unsafeBitCast(VectorMath.clamp(x, 0, 255) + VectorMath.magic, to: IntVector8.self)
    }

    /// `x` where `m` holds, else 0.
    @inline(__always) static func keep(_ x: Vector8, where m: SIMDMask<IntVector8>) -> Vector8 {
        unsafeBitCast(unsafeBitCast(x, to: IntVector8.self) & unsafeBitCast(m, to: IntVector8.self), to: Vector8.self)
    }

    /// `ColourDifference.strength` in every lane.
    @inline(__always) static func strength(_ u: Vector8, _ v: Vector8, _ k: ColourDifference) -> Vector8 {
        let s = k.ku * u + k.kv * v
        let e1 = k.d1u * u + k.d1v * v, e2 = k.d2u * u + k.d2v * v
        return VectorMath.max(VectorMath.min(s, k.cap * VectorMath.min(e1, e2)), Vector8(repeating: 0))
    }

    /// `Despill.apply` in every lane.
    @inline(__always) static func despill(
        _ u: inout Vector8, _ v: inout Vector8, luma: Vector8, ratio: Vector8, k: Vector8, su: Vector8, sv: Vector8, _ d: Despill
    ) {
        let zero = Vector8(repeating: 0)
        let spill = VectorMath.max(d.du * u + d.dv * v, zero)
        let c = u * su + v * sv, pp = u * u + v * v, ss = su * su + sv * sv
        let near = VectorMath.select(c .> 0, VectorMath.clamp((c * c - d.farCos2 * pp * ss) / ((d.nearCos2 - d.farCos2) * pp * ss + 1e-6), 0, 1), zero)
        let limit = VectorMath.max(VectorMath.max(luma, zero) * ratio * (d.cast + d.partial * k), near * spill)
        let amount = (d.limited ? VectorMath.min(spill, limit) : spill) * d.amount
        u += d.moveU * amount; v += d.moveV * amount
    }

    /// `Despill.apply` in every lane without the limit (`Despill.limited` false): all of the
    /// spill, the same operations as `despill` then does.
    @inline(__always) static func despillAll(_ u: inout Vector8, _ v: inout Vector8, _ d: Despill) {
        let amount = VectorMath.max(d.du * u + d.dv * v, Vector8(repeating: 0)) * d.amount
        u += d.moveU * amount; v += d.moveV * amount
    }

    /// How far each chroma sample stands from the local screen (`KeyerSettings.coreClip`): 0 where
    /// the squared distance of (u, v) from the screen's (su, sv) is at most `clip2` times the
    /// screen's own squared chroma, 255 from four times that on (twice the clip's distance),
    /// linear between: a soft step, so that noise moves the core a little instead of switching it
    /// (a step to 1.41 times the distance flipped thin leaves' cores with the noise, issue 44).
    static func farRow(
        u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>, su: UnsafePointer<Float>, sv: UnsafePointer<Float>, count: Int,
        clip2: Float, into out: UnsafeMutablePointer<UInt8>
    ) {
        var cx = 0
        while cx + 8 <= count {
            let a = loadFloats(su + cx), b = loadFloats(sv + cx)
            let du = bytes(u + cx) - 128 - a, dv = bytes(v + cx) - 128 - b
            let ss = clip2 * (a * a + b * b)
            storeBytes(clampBytes((du * du + dv * dv - ss) * 255 / VectorMath.max(3 * ss, Vector8(repeating: 1e-6))), out + cx)
            cx += 8
        }
        for cx in cx..<count {
            let du = Float(Int32(u[cx]) - 128) - su[cx], dv = Float(Int32(v[cx]) - 128) - sv[cx]
            let ss = clip2 * (su[cx] * su[cx] + sv[cx] * sv[cx])
            out[cx] = clampByte((du * du + dv * dv - ss) * 255 / max(3 * ss, 1e-6))
        }
    }

    /// The core of chroma row cy: the least far (`farRow`) of the sample and its four neighbours
    /// (an erosion: a thin strand or an edge, next to the screen, has none). `above`, `row`,
    /// `below`: far rows with one padding byte before and after (copies of the ends).
    static func coreRow(
        above: UnsafePointer<UInt8>, row: UnsafePointer<UInt8>, below: UnsafePointer<UInt8>, count: Int,
        into out: UnsafeMutablePointer<UInt8>
    ) {
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self) }
        @inline(__always) func least(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .< a) }
        var cx = 0
        while cx + 16 <= count {
            let c = least(least(least(load(row + cx), load(row + cx - 1)), least(load(row + cx + 1), load(above + cx))), load(below + cx))
            UnsafeMutableRawPointer(out + cx).storeBytes(of: c, as: SIMD16<UInt8>.self)
            cx += 16
        }
        for cx in cx..<count { out[cx] = min(row[cx], row[cx - 1], row[cx + 1], above[cx], below[cx]) }
    }

    /// The matte's temporal filter on one luma row (`KeyerSettings.matteSmoothing`): where the
    /// pixel's luma moved by at most 6 levels since the last frame it keeps `keep` of its last
    /// matte, none from 16 levels on, linear between, and none where the matte itself jumped by 128
    /// levels or more (from 64: a subject of the screen's luma moving over it); the row's matte
    /// and luma become the history.
    /// Blocks of sixteen whose matte is what it was are left (only the luma is kept).
    static func smoothRow(
        alpha a: UnsafeMutablePointer<UInt8>, luma l: UnsafePointer<UInt8>, history ha: UnsafeMutablePointer<UInt8>,
        historyLuma hl: UnsafeMutablePointer<UInt8>, width w: Int, keep: Float, avx2: Bool = KeyerVectors.avx2
    ) {
        // The same blocks in C (KeyerRows.h) where they run; the tail below stays.
        var x = avx2 ? Int(cvec_smooth_row_avx2(a, l, ha, hl, Int32(w), keep)) : 0
        while x + 16 <= w {
            // Two 64-bit words, not SIMD16's `!=`: that is the generic `SIMD` equality, a loop over
            // the sixteen bytes through the stack (40% of the keyer's time in `perf`, issue 44).
            if (word(a + x) ^ word(ha + x)) | (word(a + x + 8) ^ word(ha + x + 8)) != 0 {
                for half in 0..<2 {
                    let x = x + 8 * half
                    let diff = VectorMath.max(bytes(l + x) - bytes(hl + x), bytes(hl + x) - bytes(l + x))
                    let av = bytes(a + x), jump = VectorMath.max(av - bytes(ha + x), bytes(ha + x) - av)
                    let moved = VectorMath.max(VectorMath.clamp((diff - 6) * (1 / 10), 0, 1), VectorMath.clamp((jump - 64) * (1 / 64), 0, 1))
                    let k = keep * (1 - moved)
                    storeBytes(clampBytes(av + k * (bytes(ha + x) - av)), a + x)
                }
                copy16(a + x, ha + x)
            }
            copy16(l + x, hl + x)
            x += 16
        }
        for x in x..<w {
            if a[x] != ha[x] {
                let diff = abs(Float(l[x]) - Float(hl[x]))
                let av = Float(a[x]), jump = abs(av - Float(ha[x]))
                let moved = max(min(max((diff - 6) * (1 / 10), 0), 1), min(max((jump - 64) * (1 / 64), 0), 1))
                let k = keep * (1 - moved)
                a[x] = clampByte(av + k * (Float(ha[x]) - av))
                ha[x] = a[x]
            }
            hl[x] = l[x]
        }
    }

    /// The screen strength of `count` chroma samples.
    static func strengthRow(
        u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>, count: Int, key: ColourDifference,
        into out: UnsafeMutablePointer<Float>, avx2: Bool = KeyerVectors.avx2
    ) {
        var cx = 0
        if avx2 {
            var k = key.lanes
            cx = Int(cvec_strength_row_avx2(&k, u, v, Int32(count), out))
        }
        while cx + 8 <= count {
            storeFloats(strength(bytes(u + cx) - 128, bytes(v + cx) - 128, key), out + cx)
            cx += 8
        }
        for cx in cx..<count { out[cx] = key.strength(u: Float(Int32(u[cx]) - 128), v: Float(Int32(v[cx]) - 128)) }
    }

    /// `row` (count values) filtered [1 2 1] / 4 along the row (ends repeated), in place, with
    /// `scratch` (count values): the chroma's noise, which the matte would turn into a crawling
    /// edge, at 0.61 of its amplitude.
    static func smoothStrength(_ row: UnsafeMutablePointer<Float>, count: Int, scratch: UnsafeMutablePointer<Float>) {
        guard count > 1 else { return }
        scratch.update(from: row, count: count)
        row[0] = 0.25 * scratch[0] + 0.5 * scratch[0] + 0.25 * scratch[1]
        var cx = 1
        while cx + 9 <= count {
            storeFloats(0.25 * loadFloats(scratch + cx - 1) + 0.5 * loadFloats(scratch + cx) + 0.25 * loadFloats(scratch + cx + 1), row + cx)
            cx += 8
        }
        for cx in cx..<count {
            row[cx] = 0.25 * scratch[cx - 1] + 0.5 * scratch[cx] + 0.25 * scratch[min(cx + 1, count - 1)]
        }
    }

    /// One luma row of the matte from the chroma row's strengths `near` (the chroma row the luma
    /// row belongs to) and `far` (the next one towards the luma row), the local screen's
    /// 1 / strength and spill allowance at its even and odd columns, and the row's `luma`.
    /// `sHalf` is scratch for cw + 2 values from index -1 (a repeated end on either side).
    static func matteRow(
        near: UnsafePointer<Float>, far: UnsafePointer<Float>, inverseEven: UnsafePointer<Float>,
        inverseOdd: UnsafePointer<Float>, allowanceEven: UnsafePointer<Float>, allowanceOdd: UnsafePointer<Float>,
        luma: UnsafePointer<UInt8>, sHalf: UnsafeMutablePointer<Float>, width w: Int,
        levels: MatteLevels, core: UnsafePointer<UInt8>? = nil, into out: UnsafeMutablePointer<UInt8>,
        avx2: Bool = KeyerVectors.avx2
    ) {
        let cw = (w + 1) / 2
        // The luma row sits a quarter of a chroma row from `near` towards `far`.
        var cx = avx2 ? Int(cvec_mix_rows_avx2(near, far, Int32(cw), sHalf)) : 0
        while cx + 8 <= cw {
            storeFloats(0.75 * loadFloats(near + cx) + 0.25 * loadFloats(far + cx), sHalf + cx)
            cx += 8
        }
        for cx in cx..<cw { sHalf[cx] = 0.75 * near[cx] + 0.25 * far[cx] }
        sHalf[-1] = sHalf[0]; sHalf[cw] = sHalf[cw - 1]
        // A chroma sample sits between its two luma columns (centred, as swscale and so the
        // ffmpeg CLI make 4:2:0, and as the cameras in /work/shared/media measure: issue 44's
        // sixth session), so the even column is a quarter of the way to the sample before, the
        // odd one a quarter of the way to the next. (Taken as co-sited with the even column, the
        // matte stood half a pixel left of the picture's edges.)
        let black = levels.black, scale = levels.scale
        cx = 0
        // A pixel with no screen in it (strength 0 here and at the next sample: a foreground
        // run) has raw matte 1 whatever the local screen: sixteen of them are one store.
        let opaque = SIMD16<UInt8>(repeating: levels.byte(1)), transparent = SIMD16<UInt8>(repeating: 0)
        let transparentFrom = Vector8(repeating: levels.transparentFrom), opaqueUpTo = Vector8(repeating: levels.opaqueUpTo)
        if avx2 {
            // The same blocks in C (KeyerRows.h); the tail below stays.
            var row = cvec_matte_row(
                sHalf: sHalf, inverseEven: inverseEven, inverseOdd: inverseOdd, allowanceEven: allowanceEven,
                allowanceOdd: allowanceOdd, luma: luma, core: core, black: black, scale: scale,
                transparentFrom: levels.transparentFrom, opaqueUpTo: levels.opaqueUpTo, opaque: levels.byte(1))
            cx = Int(cvec_matte_row_avx2(&row, Int32(w), out))
        }
        while 2 * cx + 16 <= w {
            let before = loadFloats(sHalf + cx - 1), s = loadFloats(sHalf + cx), next = loadFloats(sHalf + cx + 1)
            let any =
                unsafeBitCast(before, to: SIMD8<UInt32>.self) | unsafeBitCast(s, to: SIMD8<UInt32>.self)
                | unsafeBitCast(next, to: SIMD8<UInt32>.self)
            let words = unsafeBitCast(any.lowHalf | any.highHalf, to: SIMD2<UInt64>.self)
            // The core matte of the eight chroma samples (0 or 255 each; `KeyerSettings.coreClip`).
            let coreWord = core.map { word($0 + cx) } ?? 0
            if words[0] | words[1] == 0 || coreWord == ~0 {
                UnsafeMutableRawPointer(out + 2 * cx).storeBytes(of: opaque, as: SIMD16<UInt8>.self)
                cx += 8
                continue
            }
            // The screen share of each pixel; all sixteen past a cut: one store (most of a
            // frame is plain screen). Within the cuts, the levels.
            // Less the spill cast its luma carries (`ScreenEstimate.finish`): luma above black
            // at the even and odd columns, the low and high bytes of sixteen-bit words.
            let lumaWords = UnsafeRawPointer(luma + 2 * cx).loadUnaligned(as: SIMD8<UInt16>.self)
            let zero = Vector8(repeating: 0)
            let le = VectorMath.max(VectorMath.float(VectorMath.widen(lumaWords & 0xFF)) - 16, zero)
            let lo = VectorMath.max(VectorMath.float(VectorMath.widen(lumaWords &>> 8)) - 16, zero)
            let pe = (0.75 * s + 0.25 * before) * loadFloats(inverseEven + cx) - le * loadFloats(allowanceEven + cx)
            let po = (0.75 * s + 0.25 * next) * loadFloats(inverseOdd + cx) - lo * loadFloats(allowanceOdd + cx)
            if coreWord == 0 && all((pe .>= transparentFrom) .& (po .>= transparentFrom)) {
                UnsafeMutableRawPointer(out + 2 * cx).storeBytes(of: transparent, as: SIMD16<UInt8>.self)
                cx += 8
                continue
            }
            if all((pe .<= opaqueUpTo) .& (po .<= opaqueUpTo)) {
                UnsafeMutableRawPointer(out + 2 * cx).storeBytes(of: opaque, as: SIMD16<UInt8>.self)
                cx += 8
                continue
            }
            var even = (1 - pe - black) * scale
            var odd = (1 - po - black) * scale
            if let core, coreWord != 0 {
                let c = bytes(core + cx)
                even = VectorMath.max(even, c); odd = VectorMath.max(odd, c)
            }
            // Even and odd bytes interleaved as one little-endian 16-bit word per sample.
            let both = (clampBits(even) & 0xFF) | ((clampBits(odd) & 0xFF) &<< 8)
            UnsafeMutableRawPointer(out + 2 * cx).storeBytes(of: VectorMath.narrow16(both), as: SIMD8<UInt16>.self)
            cx += 8
        }
        for x in (2 * cx)..<w {
            let c = x / 2
            let s = 0.75 * sHalf[c] + 0.25 * sHalf[x % 2 == 0 ? c - 1 : c + 1]
            let l = max(Float(Int32(luma[x]) - 16), 0)
            let p = s * (x % 2 == 0 ? inverseEven[c] : inverseOdd[c]) - l * (x % 2 == 0 ? allowanceEven[c] : allowanceOdd[c])
            out[x] = max(levels.byte(1 - p), core?[c] ?? 0)
        }
    }

    /// Luma row of the composite: the foreground `p` minus (1 - alpha) x the screen's luma
    /// (`screenY`, one value per grid cell of this chroma row), plus (1 - alpha) x the
    /// background `q`. Blocks of sixteen all foreground or all background are copies.
    static func compositeLuma(
        alpha a: UnsafePointer<UInt8>, foreground p: UnsafePointer<UInt8>, background q: UnsafePointer<UInt8>,
        into o: UnsafeMutablePointer<UInt8>, width w: Int, screenY: UnsafePointer<Float>, screen: ScreenEstimate,
        avx2: Bool = KeyerVectors.avx2
    ) {
        let group0 = screen.group0, group1 = screen.group1, columnT = screen.columnT
        // The same blocks in C (KeyerComposite.h) where they run; the tail below stays.
        var x = avx2 ? Int(cvec_composite_luma_avx2(a, p, q, o, Int32(w), screenY, group0, group1, columnT)) : 0
        while x + 16 <= w {
            let m0 = word(a + x), m1 = word(a + x + 8)
            if m0 & m1 == ~0 {
                copy16(p + x, o + x)
            } else if m0 | m1 == 0 {
                copy16(q + x, o + x)
            } else {
                for half in 0..<2 {
                    // Eight luma columns between the same two grid cells.
                    let x = x + 8 * half, j = x / 8
                    let g0 = screenY[Int(group0[j])], g1 = screenY[Int(group1[j])]
                    let sy = g0 + loadFloats(columnT + x) * (g1 - g0)
                    let av = bytes(a + x), pv = bytes(p + x), qv = bytes(q + x)
                    let k = (255 - av) * inverse255
                    let r = VectorMath.select(av .== 0, qv, pv + k * (qv - sy))
                    storeBytes(clampBytes(r), o + x)
                }
            }
            x += 16
        }
        for x in x..<w {
            let av = a[x]
            if av == 255 {
                o[x] = p[x]
            } else if av == 0 {
                o[x] = q[x]
            } else {
                let k = Float(255 - Int(av)) * inverse255
                o[x] = clampByte(Float(p[x]) + k * (Float(q[x]) - screen.at(screenY, x)))
            }
        }
    }

    /// Chroma row of the composite (one plane pair): each sample with the mean alpha `k` of its
    /// four luma pixels (rows `a0`, `a1`): the foreground minus k x the screen, despilled (within
    /// the limit its premultiplied luma, from luma rows `y0`, `y1`, and the screen's `ratio` give:
    /// `Despill`), plus k x the background.
    static func compositeChroma(
        alpha a0: UnsafePointer<UInt8>, _ a1: UnsafePointer<UInt8>,
        luma y0: UnsafePointer<UInt8>, _ y1: UnsafePointer<UInt8>,
        foreground fu: UnsafePointer<UInt8>, _ fv: UnsafePointer<UInt8>,
        background bu: UnsafePointer<UInt8>, _ bv: UnsafePointer<UInt8>,
        into ou: UnsafeMutablePointer<UInt8>, _ ov: UnsafeMutablePointer<UInt8>,
        width w: Int, screenY: UnsafePointer<Float>, screenU: UnsafePointer<Float>, screenV: UnsafePointer<Float>,
        ratio: UnsafePointer<Float>, screen: ScreenEstimate, despill: Despill, avx2: Bool = KeyerVectors.avx2
    ) {
        let cw = (w + 1) / 2
        let evenT = screen.evenT
        let lumaScale: Float = 255 / 219
        var cx = 0
        if avx2 {
            // The same blocks in C (KeyerComposite.h); the tail below stays.
            var row = cvec_chroma_row(
                alpha0: a0, alpha1: a1, luma0: y0, luma1: y1, fu: fu, fv: fv, bu: bu, bv: bv, ou: ou, ov: ov, screenY: screenY,
                screenU: screenU, screenV: screenV, ratio: ratio, group0: screen.group0, group1: screen.group1, evenT: evenT,
                despill: despill.lanes)
            cx = Int(cvec_composite_chroma_avx2(&row, Int32(w)))
        }
        while 2 * cx + 16 <= w {
            let x = 2 * cx
            let m0 = word(a0 + x), m1 = word(a0 + x + 8), m2 = word(a1 + x), m3 = word(a1 + x + 8)
            if m0 | m1 | m2 | m3 == 0 {
                UnsafeMutableRawPointer(ou + cx).storeBytes(of: word(bu + cx), as: UInt64.self)
                UnsafeMutableRawPointer(ov + cx).storeBytes(of: word(bv + cx), as: UInt64.self)
                cx += 8
                continue
            }
            var u = bytes(fu + cx) - 128, v = bytes(fv + cx) - 128
            // The screen at the even luma column of each sample (as `ScreenEstimate.spreadRow`).
            let t = loadFloats(evenT + cx)
            @inline(__always) func spread(_ row: UnsafePointer<Float>) -> Vector8 {
                let (g0, g1) = screen.cells(row, chroma: cx)
                return g0 + t * (g1 - g0)
            }
            // The mean luma of the sample's four pixels: the two bytes of a 16-bit word, in both rows.
            @inline(__always) func meanLuma() -> Vector8 {
                let l0 = UnsafeRawPointer(y0 + x).loadUnaligned(as: SIMD8<UInt16>.self)
                let l1 = UnsafeRawPointer(y1 + x).loadUnaligned(as: SIMD8<UInt16>.self)
                return VectorMath.float(VectorMath.widen((l0 & 0xFF) &+ (l0 &>> 8) &+ (l1 & 0xFF) &+ (l1 &>> 8))) * 0.25
            }
            // Without the limit (`Despill.limited` false) the despill reads neither the luma, the
            // screen's chroma nor its ratio: they are not computed for it.
            if m0 & m1 & m2 & m3 == ~0 {
                // All foreground: k = 0, so only the despill changes anything.
                if despill.limited {
                    let zero = Vector8(repeating: 0)
                    KeyerVectors.despill(
                        &u, &v, luma: (meanLuma() - 16) * lumaScale, ratio: spread(ratio), k: zero, su: spread(screenU),
                        sv: spread(screenV), despill)
                } else {
                    KeyerVectors.despillAll(&u, &v, despill)
                }
            } else {
                let su = spread(screenU), sv = spread(screenV)
                // The four alphas of each sample: the two bytes of a 16-bit word, in both rows.
                let r0 = UnsafeRawPointer(a0 + x).loadUnaligned(as: SIMD8<UInt16>.self)
                let r1 = UnsafeRawPointer(a1 + x).loadUnaligned(as: SIMD8<UInt16>.self)
                let pairs = (r0 & 0xFF) &+ (r0 &>> 8) &+ (r1 & 0xFF) &+ (r1 &>> 8)
                let sum = VectorMath.float(VectorMath.widen(pairs))
                let k = (1020 - sum) * inverse1020
                u -= k * su; v -= k * sv
                if despill.limited {
                    let premultiplied = ((meanLuma() - 16) - k * (spread(screenY) - 16)) * lumaScale
                    KeyerVectors.despill(&u, &v, luma: premultiplied, ratio: spread(ratio), k: k, su: su, sv: sv, despill)
                } else {
                    KeyerVectors.despillAll(&u, &v, despill)
                }
                let bgU = bytes(bu + cx) - 128, bgV = bytes(bv + cx) - 128
                u += k * bgU; v += k * bgV
                let none = sum .== 0
                u = VectorMath.select(none, bgU, u); v = VectorMath.select(none, bgV, v)
            }
            storeBytes(clampBytes(u + 128), ou + cx); storeBytes(clampBytes(v + 128), ov + cx)
            cx += 8
        }
        for cx in cx..<cw {
            let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
            let sum = Int(a0[x0]) + Int(a0[x1]) + Int(a1[x0]) + Int(a1[x1])
            if sum == 0 { ou[cx] = bu[cx]; ov[cx] = bv[cx]; continue }
            var u = Float(fu[cx]) - 128, v = Float(fv[cx]) - 128
            let su = screen.at(screenU, x0), sv = screen.at(screenV, x0), sr = screen.at(ratio, x0)
            let luma = Float(Int32(y0[x0]) + Int32(y0[x1]) + Int32(y1[x0]) + Int32(y1[x1])) * 0.25
            if sum == 4 * 255 {
                despill.apply(u: &u, v: &v, luma: (luma - 16) * lumaScale, ratio: sr, k: 0, su: su, sv: sv)
            } else {
                let k = Float(4 * 255 - sum) * inverse1020
                u -= k * su; v -= k * sv
                let premultiplied = ((luma - 16) - k * (screen.at(screenY, x0) - 16)) * lumaScale
                despill.apply(u: &u, v: &v, luma: premultiplied, ratio: sr, k: k, su: su, sv: sv)
                u += k * (Float(bu[cx]) - 128); v += k * (Float(bv[cx]) - 128)
            }
            ou[cx] = clampByte(u + 128); ov[cx] = clampByte(v + 128)
        }
    }
}

extension ColourDifference {
    /// These numbers as the C kernels take them (KeyerRows.h).
    var lanes: cvec_key { cvec_key(ku: ku, kv: kv, d1u: d1u, d1v: d1v, d2u: d2u, d2v: d2v, cap: cap) }
}

extension Despill {
    /// These numbers as the C kernels take them (KeyerComposite.h).
    var lanes: cvec_despill {
        cvec_despill(
            du: du, dv: dv, moveU: moveU, moveV: moveV, amount: amount, cast: cast, partial: partial, nearCos2: nearCos2,
            farCos2: farCos2, limited: limited ? 1 : 0)
    }
}
