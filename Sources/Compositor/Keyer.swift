/// Lockstep's chroma keyer, on 4:2:0 planes.
///
/// Per frame:
/// 1. the screen is measured on a coarse grid (`ScreenEstimate`): its colour and strength where
///    it is lit brightly, where it is in shadow;
/// 2. the matte, at luma resolution: chroma is upsampled bilinearly to every luma pixel (each
///    sample centred between its two columns and its two rows), its screen strength (`ColourDifference`)
///    divided by the local screen's gives how much screen the pixel holds; alpha = 1 - that,
///    through the levels (clip black / white), then erode, dilate, feather, garbage and core;
/// 3. the composite, by screen subtraction: the pixel minus (1 - alpha) x the local screen colour
///    is the premultiplied foreground; its spill goes (`Despill`, which keeps luma), and
///    (1 - alpha) x the background is added. An edge pixel thus loses its screen instead of
///    being mixed with it (a plain mix of the pixel and the background leaves a green fringe).
///    Luma at full resolution, each chroma sample with the mean alpha of its four luma pixels.
///
/// Buffers are made once per picture size; a frame allocates nothing. Not thread-safe: one
/// keyer per compositor.
public final class Keyer {
    public let settings: KeyerSettings
    /// Its cap is the green-subjects answer's (`GreenSubjects.cap`): with `auto`, the first
    /// frame's (`chooseGreenSubjects`).
    private(set) var difference: ColourDifference
    /// Limited to the screen's cast with green subjects, all of the spill without (`GreenSubjects`).
    private(set) var despill: Despill
    /// What the green subjects were taken to be (`KeyerSettings.greenSubjects`, or with `auto`
    /// the first frame's answer) and, with `auto`, the share of the picture measured
    /// (`GreenSubjects.measure`); nil before the first frame when `auto`.
    public private(set) var greenSubjects: GreenSubjects?
    public private(set) var greenShare: Double?
    /// The screen the first frame measured (its strongest cell; nil: none seen) and whether a frame came.
    public private(set) var firstScreen: YUVColor?
    private var sawFrame = false
    /// The clip points in force: the settings', with clip white at most `GreenSubjects.clipWhite`
    /// when the answer is yes.
    private(set) var levels: MatteLevels
    let matrix: ColorMatrix
    /// The screen colour's strength: what "fully screen" means before the frame is measured.
    let reference: Float
    let fallback: YUVColor
    /// The core matte's clip, squared (`KeyerSettings.coreClip`, with green subjects); 0: no core matte.
    private(set) var coreClip2: Float
    private var buffers: KeyerBuffers?

    /// The screen the last frame measured (its strongest cell), in the keyer's working signal;
    /// nil before a frame or when no screen was seen.
    public var measuredScreen: YUVColor? { buffers?.screen.measured }

    /// `matrix`: the planes' (the working signal's; BT.709 for SDR).
    public init(settings: KeyerSettings, matrix: ColorMatrix = .bt709) {
        self.settings = settings
        let given = settings.greenSubjects == .auto ? nil : settings.greenSubjects
        greenSubjects = given
        self.matrix = matrix
        // Until the first frame answers `auto`: as without green subjects.
        (difference, despill, levels, coreClip2) = Self.keying(settings, given ?? .no, matrix: matrix)
        fallback = YUVColor(rgb: settings.screenColor, matrix: matrix)
        reference = max(1, difference.strength(of: fallback))
    }

    /// The key, despill, clip points and core clip (squared) of `settings` under a green-subjects
    /// answer (`GreenSubjects`).
    static func keying(
        _ settings: KeyerSettings, _ answer: GreenSubjects, matrix: ColorMatrix
    ) -> (ColourDifference, Despill, MatteLevels, Float) {
        let green = answer == .yes
        return (
            ColourDifference(screen: settings.screenColor, balance: settings.screenBalance, cap: answer.cap, matrix: matrix),
            Despill(
                screen: settings.screenColor, amount: settings.despill, balance: settings.despillBalance, cast: settings.spillCast,
                limited: green, matrix: matrix),
            MatteLevels(black: settings.clipBlack, white: answer.clipWhite(settings.clipWhite, black: settings.clipBlack)),
            green ? Float(settings.coreClip * settings.coreClip) : 0
        )
    }

    private func prepare(width: Int, height: Int) -> KeyerBuffers {
        if let b = buffers, b.width == width, b.height == height { return b }
        let b = KeyerBuffers(width: width, height: height, settings: settings)
        buffers = b
        return b
    }

    /// The matte of the last `computeMatte` (255 = foreground), as a plane the keyer owns. (A
    /// composite with no erode, dilate, feather, garbage or core keeps only two matte rows.)
    public var alpha: Plane? { buffers.map { $0.alphaPlane } }

    /// Keys `foreground` over `background` into `out` (which may be `background`, as a stack
    /// keys in place), or writes the matte or status view, as the settings say.
    public func apply(foreground fg: YUVImage, background bg: YUVImage, into out: YUVImage) {
        precondition(fg.width == bg.width && fg.height == bg.height && out.width == fg.width && out.height == fg.height)
        guard settings.view == .composite else {
            writeView(computeMatte(fg).alphaPlane, into: out)
            return
        }
        keyFrame(fg, bg, out, smooth: true)
    }

    private func keyFrame(_ fg: YUVImage, _ bg: YUVImage, _ out: YUVImage, smooth: Bool) {
        let b = beginMatte(fg)
        let ch = fg.u.height
        let keep = smooth ? startSmoothing(fg, b) : nil
        if b.refines {
            // Erode, dilate and feather need the whole matte before any of it is used.
            for cy in 0..<ch {
                let rows = b.planeRows(cy)
                matteRows(cy, fg, b, into: rows)
                if let keep { smoothRows(cy, fg, b, rows, keep: keep) }
            }
            refine(b)
            for cy in 0..<ch {
                // The last frame's refined matte (the filter's history holds it unrefined): kept here.
                compositeRows(cy, fg, bg, out, b, alpha: b.planeRows(cy), held: keep.map { ($0, b.lastMatteRows(cy)) })
                if keep != nil { b.keepMatte(cy) }
            }
        } else {
            // One pass: each chroma row's two matte rows are keyed while they are in L1, in a
            // two-row ring (a whole matte plane would be 2 MB a 1080p frame written and
            // evicted for nothing).
            for cy in 0..<ch {
                let rows = b.ringRows(cy)
                matteRows(cy, fg, b, into: rows)
                // The filter's history is the last frame's matte (the composite's, with no
                // refining) until `smoothRows` writes this frame's: its two rows kept first.
                if let keep { b.keepHistory(cy); smoothRows(cy, fg, b, rows, keep: keep) }
                compositeRows(cy, fg, bg, out, b, alpha: rows, held: keep.map { ($0, b.lastRing(cy)) })
            }
        }
    }

    /// How much of the last frame's matte this frame's keeps (`KeyerSettings.matteSmoothing`):
    /// nil with smoothing off, 0 on the first frame (whose matte and luma only become the history).
    /// Then where `fg` moved since the last frame (`MatteMotion`, `ChromaMotion`), before its luma
    /// and chroma become the history.
    private func startSmoothing(_ fg: YUVImage, _ b: KeyerBuffers) -> Float? {
        guard settings.matteSmoothing > 0, let motion = b.motion, let colour = b.chromaMotion else { return nil }
        defer { b.keepsHistory = true }
        guard b.keepsHistory else {
            colour.mark(fg, into: motion, measure: false)
            return 0
        }
        motion.measure(fg.y, history: b.historyLuma)
        colour.mark(fg, into: motion, measure: true)
        motion.findRuns()
        return Float(settings.matteSmoothing)
    }

    /// The temporal filter on matte rows 2cy and 2cy + 1 (`KeyerVectors.smoothRow`), on the runs
    /// of blocks that did not move (`MatteMotion`); a moving run keeps none of its history (as
    /// `smoothRow` with keep 0: the matte and luma become the history).
    private func smoothRows(_ cy: Int, _ fg: YUVImage, _ b: KeyerBuffers, _ rows: MatteRows, keep: Float) {
        let w = b.width
        guard let motion = b.motion else { return }
        let block = MatteMotion.block
        for y in (2 * cy)..<min(2 * cy + 2, b.height) {
            let a = y == 2 * cy ? rows.even : rows.odd, l = fg.y.row(y), ha = b.history + y * w, hl = b.historyLuma + y * w
            let r = y / block, moving = motion.moving + r * motion.columns, ends = motion.runEnds + r * motion.columns
            var c = 0
            for run in 0..<Int(motion.runCounts[r]) {
                let end = Int(ends[run])
                let x = c * block, n = min(end * block, w) - x
                if keep > 0 && !moving[c] {
                    KeyerVectors.smoothRow(alpha: a + x, luma: l + x, history: ha + x, historyLuma: hl + x, width: n, keep: keep)
                } else {
                    (ha + x).update(from: a + x, count: n)
                    (hl + x).update(from: l + x, count: n)
                }
                c = end
            }
        }
    }

    /// A stack: `layers[1...]` keyed in turn over `layers[0]`. The matte and status views show
    /// all keyed layers' mattes combined (each over the ones below).
    public func applyStack(_ layers: [YUVImage], into out: YUVImage) {
        precondition(layers.count >= 1)
        if settings.view == .composite {
            PlaneKernels.copy(layers[0], into: out)
            // One keyer keys every layer: no layer's matte is filtered with another's.
            for i in 1..<layers.count { keyFrame(layers[i], out, out, smooth: false) }
            return
        }
        let b = prepare(width: out.width, height: out.height)
        let total = b.combinedPlane
        PlaneKernels.fillPlane(total, 0)
        for i in 1..<layers.count {
            let a = computeMatte(layers[i], smooth: false).alphaPlane
            for y in 0..<total.height {
                let t = total.row(y), s = a.row(y)
                for x in 0..<total.width { t[x] = UInt8(truncatingIfNeeded: Int(t[x]) + (Int(s[x]) * (255 - Int(t[x])) + 127) / 255) }
            }
        }
        writeView(total, into: out)
    }

    // MARK: the matte

    /// Measures the screen and computes the matte of `fg` into the keyer's alpha plane.
    @discardableResult
    public func computeMatte(_ fg: YUVImage, smooth: Bool = true) -> KeyerBuffers {
        let b = beginMatte(fg)
        let keep = smooth ? startSmoothing(fg, b) : nil
        for cy in 0..<fg.u.height {
            let rows = b.planeRows(cy)
            matteRows(cy, fg, b, into: rows)
            if let keep { smoothRows(cy, fg, b, rows, keep: keep) }
        }
        refine(b)
        return b
    }

    /// Measures the screen of `fg`.
    private func beginMatte(_ fg: YUVImage) -> KeyerBuffers {
        let b = prepare(width: fg.width, height: fg.height)
        b.screen.measure(fg, key: difference, reference: reference, fallback: fallback, cast: Float(settings.spillCast))
        if !sawFrame {
            sawFrame = true
            if greenSubjects == nil { chooseGreenSubjects(fg, b) }
            firstScreen = b.screen.measured
        }
        return b
    }

    /// `--green-subjects auto`, on the first frame: yes from `GreenSubjects.threshold` of the
    /// picture on, and then the keying of yes (`keying`; the screen is measured again with its
    /// key: the matte is normalised by the screen's own strength).
    private func chooseGreenSubjects(_ fg: YUVImage, _ b: KeyerBuffers) {
        let screen = b.screen, row = b.gridRow
        let share = GreenSubjects.measure(fg, key: difference) { cy, su, sv in
            for (table, out) in [(ScreenEstimate.Table.u, su), (.v, sv)] {
                screen.interpolateRow(table, lumaY: Double(2 * cy) + 1, into: row)
                for cx in 0..<fg.u.width { out[cx] = screen.at(row, 2 * cx) }
            }
        }
        let answer: GreenSubjects = share >= GreenSubjects.threshold ? .yes : .no
        greenShare = share
        greenSubjects = answer
        guard answer == .yes else { return }
        (difference, despill, levels, coreClip2) = Self.keying(settings, answer, matrix: matrix)
        screen.measure(fg, key: difference, reference: reference, fallback: fallback, cast: Float(settings.spillCast))
    }

    /// One line for the output's summary (issue 44, item 4): the screen as the first frame
    /// measured it and what was chosen from the picture, as options that repeat it; nil before
    /// a frame.
    public var report: String? {
        guard sawFrame, let answer = greenSubjects else { return nil }
        var parts: [String] = []
        if let s = firstScreen {
            let (r, g, b) = matrix.rgb((Double(s.y) - 16) / 219, (Double(s.u) - 128) / 224, (Double(s.v) - 128) / 224)
            func q(_ x: Double) -> UInt8 { UInt8(max(0, min(255, (x * 255).rounded()))) }
            let hex = [r, g, b].map { String(q($0), radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
            parts.append("screen measured \(hex) on the first frame")
        } else {
            parts.append("no screen seen on the first frame")
        }
        let why =
            greenShare.map { share -> String in
                let hundredths = Int((share * 10_000).rounded()), rest = hundredths % 100
                return " (\(hundredths / 100).\(rest < 10 ? "0" : "")\(rest)% of the picture green but not the screen's green)"
            } ?? ""
        parts.append("--green-subjects \(answer.rawValue)\(why)")
        parts.append("--clip-black \(settings.clipBlack) --clip-white \(answer.clipWhite(settings.clipWhite, black: settings.clipBlack))")
        return "keyer: " + parts.joined(separator: ", ")
    }

    /// Matte rows 2cy and 2cy + 1 (those that exist). Called for cy = 0, 1, 2, ... in turn.
    private func matteRows(_ cy: Int, _ fg: YUVImage, _ b: KeyerBuffers, into rows: MatteRows) {
        let w = b.width, h = b.height, cw = (w + 1) / 2, ch = (h + 1) / 2
        // The screen strength is linear in (U, V) (with the primary-is-largest rule and the clamp
        // at 0 on top), so it is computed once per chroma sample and interpolated to each luma
        // pixel: the same as keying bilinearly upsampled chroma wherever neighbouring samples
        // are on the same side of that rule, at a quarter of the work. Chroma rows cy - 1, cy
        // and cy + 1 are used, kept in a ring of three rows (row r in slot r % 3): row cy + 1 is
        // computed here, before the composite of row cy can overwrite anything.
        @inline(__always) func strength(_ r: Int) -> UnsafeMutablePointer<Float> { b.strength + (r % 3) * cw }
        for r in (cy == 0 ? 0 : cy + 1)..<min(cy + 2, ch) {
            KeyerVectors.strengthRow(u: fg.u.row(r), v: fg.v.row(r), count: cw, key: difference, into: strength(r))
            if coreClip2 > 0 { farRow(r, fg, b) }
        }
        if coreClip2 > 0 {
            KeyerVectors.coreRow(above: b.farRow(max(cy - 1, 0)), row: b.farRow(cy), below: b.farRow(min(cy + 1, ch - 1)), count: cw, into: b.coreFlags)
        }
        // The local screen's 1 / strength, once per chroma row (it varies over 16 pixels).
        b.screen.interpolateRow(.inverse, lumaY: Double(2 * cy) + 1, into: b.gridRow)
        b.screen.spreadRow(b.gridRow, even: b.inverseEven, odd: b.inverseOdd)
        b.screen.interpolateRow(.allowance, lumaY: Double(2 * cy) + 1, into: b.gridRow)
        b.screen.spreadRow(b.gridRow, even: b.allowanceEven, odd: b.allowanceOdd)
        for half in 0..<2 {
            let y = 2 * cy + half
            guard y < h else { break }
            // Luma row 2cy sits a quarter of a chroma row above chroma row cy, 2cy+1 a
            // quarter below.
            let far = half == 0 ? max(cy - 1, 0) : min(cy + 1, ch - 1)
            KeyerVectors.matteRow(
                near: strength(cy), far: strength(far), inverseEven: b.inverseEven, inverseOdd: b.inverseOdd,
                allowanceEven: b.allowanceEven, allowanceOdd: b.allowanceOdd, luma: fg.y.row(y), sHalf: b.sHalf + 1, width: w,
                levels: levels, core: coreClip2 > 0 ? UnsafePointer(b.coreFlags) : nil, into: half == 0 ? rows.even : rows.odd)
        }
    }

    /// Chroma row r's far flags (`KeyerVectors.farRow`) against the local screen's chroma at
    /// each sample, with the row's padding bytes.
    private func farRow(_ r: Int, _ fg: YUVImage, _ b: KeyerBuffers) {
        let cw = fg.u.width
        b.screen.interpolateRow(.u, lumaY: Double(2 * r) + 1, into: b.gridRowU)
        b.screen.spreadRow(b.gridRowU, even: b.screenU, odd: b.spreadScratch)
        b.screen.interpolateRow(.v, lumaY: Double(2 * r) + 1, into: b.gridRowV)
        b.screen.spreadRow(b.gridRowV, even: b.screenV, odd: b.spreadScratch)
        let row = b.farRow(r)
        KeyerVectors.farRow(u: fg.u.row(r), v: fg.v.row(r), su: b.screenU, sv: b.screenV, count: cw, clip2: coreClip2, into: row)
        row[-1] = row[0]; row[cw] = row[cw - 1]
    }

    /// Erode, dilate, feather, then the garbage matte (outside: transparent) and the core matte
    /// (inside: opaque).
    private func refine(_ b: KeyerBuffers) {
        let a = b.alphaPlane
        if let m = b.morphology {
            m.erode(a, radius: settings.erode)
            m.dilate(a, radius: settings.dilate)
            m.feather(a, radius: settings.feather)
        }
        let n = a.width * a.height
        if let g = b.garbage {
            g.withUnsafeBufferPointer { g in for i in 0..<n { a.base[i] = min(a.base[i], g[i]) } }
        }
        if let c = b.core {
            c.withUnsafeBufferPointer { c in for i in 0..<n { a.base[i] = max(a.base[i], c[i]) } }
        }
    }

    // MARK: the composite

    /// Luma rows 2cy and 2cy + 1 and chroma row cy of the composite (`KeyerVectors`). Blocks of
    /// sixteen pixels that are all foreground or all background are copied; only the edge is
    /// computed. Then, with `held` (the matte's temporal filter on: its keep and the last frame's
    /// matte rows), the partial pixels' foreground colour is held still in time (`ForegroundSmoothing`).
    private func compositeRows(
        _ cy: Int, _ fg: YUVImage, _ bg: YUVImage, _ out: YUVImage, _ b: KeyerBuffers,
        alpha rows: MatteRows, held: (keep: Float, last: MatteRows)?
    ) {
        let w = b.width, h = b.height
        // A layer keyed in place writes over its background, which the filter reads after.
        let smoothing = held == nil ? nil : b.foreground
        let inPlace = out.y.base == bg.y.base
        if let smoothing, inPlace { smoothing.saveBackground(cy, bg) }
        defer {
            if let smoothing, let held {
                smoothing.apply(cy, alpha: rows, last: held.last, background: bg, saved: inPlace, into: out, keep: held.keep, motion: b.motion)
            }
        }
        let screen = b.screen
        let centre = Double(2 * cy) + 1
        screen.interpolateRow(.y, lumaY: centre, into: b.gridRow)
        screen.interpolateRow(.u, lumaY: centre, into: b.gridRowU)
        screen.interpolateRow(.v, lumaY: centre, into: b.gridRowV)
        screen.interpolateRow(.ratio, lumaY: centre, into: b.gridRowR)
        for y in (2 * cy)..<min(2 * cy + 2, h) {
            KeyerVectors.compositeLuma(
                alpha: y == 2 * cy ? rows.even : rows.odd, foreground: fg.y.row(y), background: bg.y.row(y), into: out.y.row(y),
                width: w, screenY: b.gridRow, screen: screen)
        }
        KeyerVectors.compositeChroma(
            alpha: rows.even, rows.odd, luma: fg.y.row(2 * cy), fg.y.row(min(2 * cy + 1, h - 1)),
            foreground: fg.u.row(cy), fg.v.row(cy), background: bg.u.row(cy), bg.v.row(cy),
            into: out.u.row(cy), out.v.row(cy), width: w, screenY: b.gridRow, screenU: b.gridRowU, screenV: b.gridRowV,
            ratio: b.gridRowR, screen: screen, despill: despill)
    }

    /// The matte (white = foreground, video range) or the status view, in grey.
    private func writeView(_ alpha: Plane, into out: YUVImage) {
        let status = settings.view == .status
        for y in 0..<out.height {
            let a = alpha.row(y), o = out.y.row(y)
            for x in 0..<out.width {
                let v = Int(a[x])
                o[x] = status ? (v == 255 ? 235 : v == 0 ? 16 : 128) : UInt8(truncatingIfNeeded: 16 + (v * 219 + 127) / 255)
            }
        }
        PlaneKernels.fillPlane(out.u, 128)
        PlaneKernels.fillPlane(out.v, 128)
    }
}

/// x clamped to 0...255 and rounded (half to even), without Int32(_:)'s range check (see MatteLevels.byte).
@inline(__always) func clampByte(_ x: Float) -> UInt8 {
    UInt8(truncatingIfNeeded: (min(max(x, 0), 255) + 12_582_912).bitPattern)
}

/// Matte rows 2cy and 2cy + 1 of one chroma row; `odd` is `even` when the picture has no row
/// 2cy + 1 (the chroma composite then reads row 2cy twice, as the plane's clamp did).
struct MatteRows {
    let even: UnsafeMutablePointer<UInt8>, odd: UnsafeMutablePointer<UInt8>
}

/// Everything a keyer needs for one picture size, made once.
public final class KeyerBuffers {
    public let width: Int, height: Int
    let screen: ScreenEstimate
    let morphology: MatteMorphology?
    let garbage: [UInt8]?, core: [UInt8]?
    /// Whether the matte is changed after it is keyed (erode, dilate, feather, garbage, core).
    let refines: Bool
    let alphaStorage: UnsafeMutablePointer<UInt8>
    /// Two matte rows: the one-pass composite's (`Keyer.apply`).
    let matteRing: UnsafeMutablePointer<UInt8>
    /// The last frame's matte rows for `ForegroundSmoothing`: in one pass two rows of the
    /// filter's history, kept before it is written (`keepHistory`); refined, a plane of the
    /// refined matte (`keepMatte`), the history being the matte before refining. Without the
    /// filter (or, for the plane, without refining) one byte each, never read.
    private let lastRingStorage: UnsafeMutablePointer<UInt8>, lastMatte: UnsafeMutablePointer<UInt8>
    private let combinedStorage: UnsafeMutablePointer<UInt8>
    /// One luma row's strength at chroma resolution (from index -1: `KeyerVectors.matteRow`), and its local screen's 1 / strength and
    /// spill allowance at the even and odd luma column of each chroma sample.
    let sHalf: UnsafeMutablePointer<Float>, inverseEven: UnsafeMutablePointer<Float>, inverseOdd: UnsafeMutablePointer<Float>
    let allowanceEven: UnsafeMutablePointer<Float>, allowanceOdd: UnsafeMutablePointer<Float>
    /// The screen strength of three chroma rows (a ring: `Keyer.matteRows`).
    let strength: UnsafeMutablePointer<Float>
    let gridRow: UnsafeMutablePointer<Float>, gridRowU: UnsafeMutablePointer<Float>, gridRowV: UnsafeMutablePointer<Float>
    let gridRowR: UnsafeMutablePointer<Float>
    /// The core matte: the far flags of three chroma rows (a ring, row r in slot r % 3, each with
    /// a padding byte before and after), the local screen's chroma at each sample, and the core
    /// of the chroma row being keyed (`Keyer.farRow`, `KeyerVectors.coreRow`).
    let farRing: UnsafeMutablePointer<UInt8>, coreFlags: UnsafeMutablePointer<UInt8>
    let screenU: UnsafeMutablePointer<Float>, screenV: UnsafeMutablePointer<Float>, spreadScratch: UnsafeMutablePointer<Float>
    /// The last frame's matte and luma (the temporal filter's history) and whether they hold a frame.
    let history: UnsafeMutablePointer<UInt8>, historyLuma: UnsafeMutablePointer<UInt8>
    var keepsHistory = false
    /// Where the picture moved since the last frame (the filter's blocks to leave); nil without the filter.
    let motion: MatteMotion?
    /// The partial pixels' foreground colour held still in time, and where the chroma moved; nil without the filter.
    let foreground: ForegroundSmoothing?, chromaMotion: ChromaMotion?
    /// Owns every buffer above.
    private let scratch = ScratchMemory()

    init(width: Int, height: Int, settings: KeyerSettings) {
        self.width = width; self.height = height
        screen = ScreenEstimate(width: width, height: height)
        let radius = max(settings.erode, settings.dilate, settings.feather)
        morphology = radius > 0 ? MatteMorphology(width: width, height: height, radius: radius) : nil
        // The user's garbage matte and a placed foreground's picture: transparent outside either.
        let outside = [settings.garbage, settings.picture].compactMap { $0.map { GarbageMatte.mask($0, width: width, height: height) } }
        garbage = outside.first.map { first in outside.dropFirst().reduce(first) { zip($0, $1).map(min) } }
        core = settings.core.map { GarbageMatte.mask($0, width: width, height: height) }
        refines = morphology != nil || garbage != nil || core != nil
        let m = scratch
        alphaStorage = m.buffer(count: width * height)
        combinedStorage = m.buffer(count: width * height)
        matteRing = m.buffer(count: 2 * width)
        let smoothing = settings.matteSmoothing > 0
        lastRingStorage = m.buffer(count: smoothing ? 2 * width : 1)
        lastMatte = m.buffer(count: smoothing && refines ? width * height : 1)
        let cw = (width + 1) / 2
        sHalf = m.buffer(count: cw + 2); inverseEven = m.buffer(count: cw); inverseOdd = m.buffer(count: cw)
        allowanceEven = m.buffer(count: cw); allowanceOdd = m.buffer(count: cw)
        strength = m.buffer(count: 3 * cw)
        gridRow = m.buffer(count: screen.gridWidth); gridRowU = m.buffer(count: screen.gridWidth); gridRowV = m.buffer(count: screen.gridWidth)
        gridRowR = m.buffer(count: screen.gridWidth)
        farRing = m.buffer(count: 3 * (cw + 2), value: 0); coreFlags = m.buffer(count: cw, value: 0)
        screenU = m.buffer(count: cw); screenV = m.buffer(count: cw); spreadScratch = m.buffer(count: cw)
        history = m.buffer(count: settings.matteSmoothing > 0 ? width * height : 1)
        historyLuma = m.buffer(count: settings.matteSmoothing > 0 ? width * height : 1)
        motion = settings.matteSmoothing > 0 ? MatteMotion(width: width, height: height) : nil
        foreground = settings.matteSmoothing > 0 ? ForegroundSmoothing(width: width, height: height) : nil
        chromaMotion = settings.matteSmoothing > 0 ? ChromaMotion(width: (width + 1) / 2, height: (height + 1) / 2) : nil
    }

    /// Chroma row r's far flags (slot r % 3 of the ring), after its padding byte.
    func farRow(_ r: Int) -> UnsafeMutablePointer<UInt8> { farRing + (r % 3) * ((width + 1) / 2 + 2) + 1 }

    /// Where matte rows 2cy and 2cy + 1 go: the plane's rows, or the two-row ring's.
    func planeRows(_ cy: Int) -> MatteRows {
        MatteRows(even: alphaStorage + 2 * cy * width, odd: alphaStorage + min(2 * cy + 1, height - 1) * width)
    }
    func ringRows(_ cy: Int) -> MatteRows {
        MatteRows(even: matteRing, odd: 2 * cy + 1 < height ? matteRing + width : matteRing)
    }
    func lastRing(_ cy: Int) -> MatteRows {
        MatteRows(even: lastRingStorage, odd: 2 * cy + 1 < height ? lastRingStorage + width : lastRingStorage)
    }
    func lastMatteRows(_ cy: Int) -> MatteRows {
        MatteRows(even: lastMatte + 2 * cy * width, odd: lastMatte + min(2 * cy + 1, height - 1) * width)
    }

    /// History rows 2cy and 2cy + 1 (the last frame's matte) into `lastRing`.
    func keepHistory(_ cy: Int) {
        lastRingStorage.update(from: history + 2 * cy * width, count: width)
        if 2 * cy + 1 < height { (lastRingStorage + width).update(from: history + (2 * cy + 1) * width, count: width) }
    }

    /// The refined matte's rows 2cy and 2cy + 1 into `lastMatte`, once the composite has read the last frame's.
    func keepMatte(_ cy: Int) {
        let rows = planeRows(cy), last = lastMatteRows(cy)
        last.even.update(from: rows.even, count: width)
        if 2 * cy + 1 < height { last.odd.update(from: rows.odd, count: width) }
    }

    /// The matte: 255 = foreground. Its views keep these buffers alive.
    public var alphaPlane: Plane { Plane(base: alphaStorage, stride: width, width: width, height: height, owner: self) }
    var combinedPlane: Plane { Plane(base: combinedStorage, stride: width, width: width, height: height, owner: self) }
}
