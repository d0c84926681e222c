/// Which chroma keyer `--blend chromakey` and `stack` use.
public enum KeyerChoice: String, CaseIterable, Sendable {
    /// Lockstep's keyer (`Keyer`): colour-difference matte at luma resolution, screen subtraction,
    /// despill that keeps luma, matte levels, erode/dilate/feather, garbage and core mattes.
    case lockstep
    /// GPUImage's math (`ChromaKey`): a smoothstep on the chroma distance, at chroma resolution.
    case gpuimage
}

/// What the keyer writes: the composite, or one of the tuning views Keylight and Cavalry offer.
public enum KeyView: String, CaseIterable, Sendable {
    /// The foreground keyed over the background.
    case composite
    /// The matte itself: white where the foreground is opaque, black where the background shows.
    case matte
    /// Three flat greys: white = pure foreground, black = pure background, mid grey = in between.
    case status
}

/// A garbage or core matte: a rectangle or a polygon in normalised picture coordinates
/// (0,0 top left, 1,1 bottom right). Holds whatever was given; `problem` says what is wrong with it.
public enum KeyShape: Equatable, Sendable, CustomStringConvertible {
    case rect(x: Double, y: Double, width: Double, height: Double)
    /// x1, y1, x2, y2, ...: the vertices in order.
    case polygon([Double])

    /// `rect:X,Y,W,H` or `polygon:X1,Y1,X2,Y2,X3,Y3,...` (`poly:` too). nil when it is neither
    /// (a word, a number that does not parse, an odd count of polygon coordinates).
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let kind = text[..<colon].lowercased()
        let numbers = text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { Double(String($0.filter { $0 != " " })) }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else { return nil }
        let values = numbers.map { $0! }
        switch kind {
        case "rect":
            guard values.count == 4 else { return nil }
            self = .rect(x: values[0], y: values[1], width: values[2], height: values[3])
        case "polygon", "poly":
            guard values.count % 2 == 0 else { return nil }
            self = .polygon(values)
        default:
            return nil
        }
    }

    public var description: String {
        func f(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }
        switch self {
        case let .rect(x, y, w, h): return "rect:" + [x, y, w, h].map(f).joined(separator: ",")
        case let .polygon(p): return "polygon:" + p.map(f).joined(separator: ",")
        }
    }

    /// The vertices, in normalised coordinates.
    public var points: [(x: Double, y: Double)] {
        switch self {
        case let .rect(x, y, w, h): return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        case let .polygon(p): return stride(from: 0, to: p.count - 1, by: 2).map { (p[$0], p[$0 + 1]) }
        }
    }

    /// What is wrong with the shape, as the end of a sentence that starts with the option's name;
    /// nil when it is usable.
    public var problem: String? {
        switch self {
        case let .rect(x, y, w, h):
            if let bad = [x, y, w, h].first(where: { !$0.isFinite }) { return "coordinates must be finite numbers; got \(bad)" }
            guard w > 0 && h > 0 else { return "a rectangle needs a positive width and height; got \(w) x \(h)" }
            if let bad = [x, y, x + w, y + h].first(where: { !(0...1).contains($0) }) {
                return "coordinates must be between 0 and 1 (the rectangle must lie inside the picture); got \(bad)"
            }
        case let .polygon(p):
            guard p.count >= 6 else { return "a polygon needs at least 3 points; got \(p.count / 2)" }
            if let bad = p.first(where: { !$0.isFinite }) { return "coordinates must be finite numbers; got \(bad)" }
            if let bad = p.first(where: { !(0...1).contains($0) }) { return "coordinates must be between 0 and 1; got \(bad)" }
        }
        return nil
    }
}

/// Everything Lockstep's keyer can be told. Levels and balances are fractions (0...1); erode,
/// dilate and feather are pixels of the output canvas.
public struct KeyerSettings: Equatable, Sendable {
    /// The screen's colour: its strongest channel (green for a green screen) is the one keyed.
    /// The matte is normalised by the screen as measured in each frame (uneven light, shadows),
    /// this colour only names the channel and the first guess where no screen is visible.
    public var screenColor = RGB(r: 0, g: 255, b: 0)
    /// Matte level at or below which a pixel becomes fully transparent. 0.02, not 0.05 (issue 44,
    /// seventh session): the faint outer edge of fur, hair and glass that 0.05 cut to nothing is
    /// kept, every real-edge plate and generated plate higher in the edge band (glass 0.6 dB, the
    /// rabbit 0.35, the trolls 0.23), the flicker at most 0.02 levels higher (flowers 0.04 lower),
    /// the screen itself still clear of its noise (the frame no worse but on the motion plate, by
    /// 0.02 dB). 0.01 and 0 gain the trolls, the rabbit and glass a little more, the trolls' flicker
    /// higher again, with less room above the screen's noise (docs/compositing.md).
    public var clipBlack = 0.02
    /// Matte level at or above which a pixel becomes fully opaque.
    public var clipWhite = 0.95
    /// The screen's strength is its primary channel minus `balance * lower + (1 - balance) *
    /// higher` of the other two (by channel order: red and blue for a green screen), as
    /// Blender's keying node and Keylight weigh them.
    public var screenBalance = 0.5
    /// The share of the subject's light that is the screen's bounce light (`--spill-cast`):
    /// that much of the screen's strength per unit of luma is not counted as screen, so a
    /// light surface lit by the screen keys opaque (`ScreenEstimate.finish`); 0 is the plain
    /// colour-difference matte. 0...0.5.
    public var spillCast = 0.1
    public static let spillCasts = 0.0...0.5
    /// The hard core matte (`--core-clip`): a pixel whose chroma stands at least this far from
    /// the local screen's (a share of the screen's own chroma), with its four neighbours at
    /// chroma resolution as far, is solid foreground, whatever its screen strength says: a green
    /// leaf or green hair is not a hole. Thin strands and edges fail the neighbour test and keep
    /// the soft colour-difference matte. 0 turns it off; so does a picture without green
    /// subjects (`GreenSubjects`). 0...2.
    public var coreClip = 0.35
    public static let coreClips = 0.0...2.0
    /// How much of its previous matte a pixel keeps when its luma did not move (`--matte-smoothing`):
    /// the matte's crawl under sensor noise is averaged away where the picture stands still, and
    /// a moving edge (luma changed by more than the noise) takes the new matte. A partial pixel
    /// keeps as much of its last foreground colour (`ForegroundSmoothing`). 0 is off. 0...0.9.
    /// 0.8 (issue 44, ninth session; 0.6 from the fourth, when 0.8 trailed a slowly drifting edge and
    /// a moving one): with the colour held too and the blocks whose chroma moved left
    /// (`ChromaMotion`), 0.8 takes every real-edge plate's flicker under ffmpeg's best and the motion
    /// plate to the filter-off 27.36 dB; it costs the plant 0.15 dB in the edge band (docs/compositing.md).
    public var matteSmoothing = 0.8
    public static let matteSmoothings = 0.0...0.9
    /// Whether the foreground holds green subjects (`--green-subjects`; `GreenSubjects`): `auto`
    /// decides from the first frame and the keyer reports its answer (`Keyer.report`).
    public var greenSubjects = GreenSubjects.auto
    /// How much of the spill (primary channel above the balanced other two) is removed, 0...1;
    /// with green subjects (`GreenSubjects`) within the despill's limit (`Despill`): the
    /// screen's cast on the subject, more where the matte is partial, all of it where the
    /// pixel's hue is the screen's.
    public var despill = 1.0
    /// The weighting of the other two channels in the despill limit, as `screenBalance`.
    public var despillBalance = 0.5
    public var erode = 0
    public var dilate = 0
    public var feather = 0
    /// Outside it the foreground is transparent.
    public var garbage: KeyShape?
    /// Inside it the foreground is opaque.
    public var core: KeyShape?
    public var view = KeyView.composite
    /// Where the foreground's picture lies on the canvas when it does not cover it (chromakey's
    /// `--fg-scale`, `--fg-position`): outside it transparent, as outside `garbage`.
    public var picture: KeyShape?

    public init() {}
}
