/// Whether the foreground holds green subjects (`--green-subjects`): leaves, green hair, green
/// clothing, which a green-screen keyer must keep as subject (issue 44). The two answers key
/// differently (`Keyer.keying`), because what serves one kind of picture costs the other
/// (measured on issue 44's real-edge and generated plates, docs/compositing.md):
/// - yes: the screen strength is capped at once green's lead over the larger other channel
///   (`ColourDifference.cap`; less of a leaf's or a strand's green counts as screen), clip white
///   at most 0.75, the core matte on (`KeyerSettings.coreClip`), and the despill limited to the
///   screen's cast (`Despill.limited`): green subjects stay green and solid.
/// - no: the cap at twice the lead, the clip points as given, no core matte, and all of the
///   spill removed: any green above the balanced other two is the screen's.
/// `auto` (the default) answers from the first frame (`measure`, `threshold`) and the keyer
/// says what it chose (`Keyer.report`).
public enum GreenSubjects: String, CaseIterable, Sendable {
    case auto, yes, no

    /// The strength cap (`ColourDifference.cap`) of a decided answer.
    public var cap: Double { self == .yes ? 1 : 2 }

    /// The clip white in force given `white` and `black` (`KeyerSettings.clipWhite`,
    /// `clipBlack`): with yes at most 0.75, so that a leaf or strand that still reads partly as
    /// screen keys opaque, unless clip black stands at or above it.
    public func clipWhite(_ white: Double, black: Double) -> Double {
        self == .yes && black < Self.greenClipWhite ? min(white, Self.greenClipWhite) : white
    }
    public static let greenClipWhite = 0.75

    /// `auto` answers yes from this share of the picture on (`measure`): the real-edge plates
    /// with green subjects measure 1.8% (a potted plant) and 2.9% (green troll hair), those
    /// without at most 0.02% (flowers, a plush rabbit, the generated hair, glass and motion).
    public static let threshold = 0.005

    /// The share (0...1) of `image`'s chroma samples that are green but not the screen's green:
    /// green leads (screen strength over a tenth of the local screen's) yet the chroma stands
    /// at least 0.7 of the screen's own chroma away from the local screen's, and so do its four
    /// neighbours (an edge between the screen and a subject of another colour, whose mixes pass
    /// through such chroma, is one or two samples wide and fails that). `screenU`, `screenV`:
    /// the local screen's chroma (centred) at each sample, row by row (`row(cy, u, v)` fills
    /// `cw` values each). Run once per stream: it allocates its flags.
    static func measure(
        _ image: YUVImage, key: ColourDifference,
        screen row: (Int, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) -> Void
    ) -> Double {
        let cw = image.u.width, ch = image.u.height
        guard cw >= 3 && ch >= 3 else { return 0 }
        var flags = [Bool](repeating: false, count: cw * ch)
        let su = UnsafeMutablePointer<Float>.allocate(capacity: cw), sv = UnsafeMutablePointer<Float>.allocate(capacity: cw)
        defer { su.deallocate(); sv.deallocate() }
        for cy in 0..<ch {
            row(cy, su, sv)
            let ur = image.u.row(cy), vr = image.v.row(cy)
            for cx in 0..<cw {
                let u = Float(Int32(ur[cx]) - 128), v = Float(Int32(vr[cx]) - 128)
                let screen = key.strength(u: su[cx], v: sv[cx])
                guard screen > 1, key.strength(u: u, v: v) > 0.1 * screen else { continue }
                let du = u - su[cx], dv = v - sv[cx]
                flags[cy * cw + cx] = du * du + dv * dv >= 0.49 * (su[cx] * su[cx] + sv[cx] * sv[cx])
            }
        }
        var count = 0
        for cy in 1..<(ch - 1) {
            for cx in 1..<(cw - 1) {
                let i = cy * cw + cx
                if flags[i] && flags[i - 1] && flags[i + 1] && flags[i - cw] && flags[i + cw] { count += 1 }
            }
        }
        return Double(count) / Double(cw * ch)
    }
}
