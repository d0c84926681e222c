import ArgumentParser
import Lockstep

/// The keyer's options of `composite` (chromakey and stack). Their rules live in the library
/// (`CompositeOptions.check()`), so a bad value is one sentence naming the option, exit 64.
/// Radii take the next word whatever it is (`--erode -1` is a negative erode, said in a sentence,
/// not a missing value).
struct KeyerArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "lockstep: colour-difference matte at luma resolution, screen subtraction, despill. gpuimage: GPUImage's chroma distance (--similarity, --smoothness).", valueName: "lockstep|gpuimage"))
    var keyer: KeyerChoice = .lockstep

    @Option(name: .customLong("clip-black"), parsing: .unconditional, help: "Matte level (0 to 1) at or below which a pixel is fully transparent.")
    var clipBlack = KeyerSettings().clipBlack

    @Option(name: .customLong("clip-white"), parsing: .unconditional, help: "Matte level (0 to 1) at or above which a pixel is fully opaque.")
    var clipWhite = KeyerSettings().clipWhite

    @Option(name: .customLong("screen-balance"), parsing: .unconditional, help: "Weight of red against blue (green screen; of red against green for blue) in the screen strength, 0 to 1.")
    var screenBalance = KeyerSettings().screenBalance

    @Option(
        name: .customLong("spill-cast"), parsing: .unconditional,
        help: "The share of the subject's light that is the screen's bounce light, 0 to 0.5: so much screen colour per unit of luma keys as subject, not screen (light clothing stays opaque).")
    var spillCast = KeyerSettings().spillCast

    @Option(
        parsing: .unconditional,
        help:
            "Spill removed, 0 to 1 (with green subjects within the screen's cast: more where the matte is partial, all where the hue is the screen's); the luma it takes is given back.")
    var despill = KeyerSettings().despill

    @Option(
        name: .customLong("core-clip"), parsing: .unconditional,
        help: "With green subjects: chroma distance from the screen (0 to 2, a share of its chroma) from which a pixel whose neighbours are as far is solid (no holes in them); 0 is off.")
    var coreClip = KeyerSettings().coreClip

    @Option(
        name: .customLong("matte-smoothing"), parsing: .unconditional,
        help:
            "Share of the last frame's matte (and, at a partial pixel, of its foreground colour) a still pixel keeps, 0 to 0.9 (0 off): the edge does not crawl with noise; moving pixels take the new matte."
    )
    var matteSmoothing = KeyerSettings().matteSmoothing

    @Option(
        name: .customLong("green-subjects"),
        help: ArgumentHelp(
            "Whether the foreground holds green subjects (leaves, green hair or clothing), which then count less as screen; auto decides from the first frame and says what it chose.",
            valueName: "auto|yes|no"))
    var greenSubjects = KeyerSettings().greenSubjects

    @Option(name: .customLong("despill-balance"), parsing: .unconditional, help: "Weight of red against blue in the despill limit, 0 to 1.")
    var despillBalance = KeyerSettings().despillBalance

    @Option(parsing: .unconditional, help: ArgumentHelp("Shrink the matte by this many pixels.", valueName: "pixels"))
    var erode = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Grow the matte by this many pixels (after --erode).", valueName: "pixels"))
    var dilate = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Soften the matte's edge over about this many pixels each side.", valueName: "pixels"))
    var feather = 0

    @Option(help: ArgumentHelp("Outside this shape the foreground is transparent; coordinates 0 to 1 of the picture.", valueName: "rect:X,Y,W,H|polygon:X1,Y1,X2,Y2,X3,Y3,..."))
    var garbage: KeyShape?

    @Option(help: ArgumentHelp("Inside this shape the foreground is opaque; coordinates 0 to 1 of the picture.", valueName: "rect:X,Y,W,H|polygon:X1,Y1,X2,Y2,X3,Y3,..."))
    var core: KeyShape?

    @Option(
        name: .customLong("key-view"),
        help: ArgumentHelp("composite, or for tuning the matte (white = foreground) or status (white foreground, black background, grey edge).", valueName: "composite|matte|status"))
    var keyView: KeyView = .composite

    var settings: KeyerSettings {
        var s = KeyerSettings()
        s.clipBlack = clipBlack; s.clipWhite = clipWhite; s.screenBalance = screenBalance
        s.despill = despill; s.despillBalance = despillBalance; s.spillCast = spillCast
        s.coreClip = coreClip; s.matteSmoothing = matteSmoothing; s.greenSubjects = greenSubjects
        s.erode = erode; s.dilate = dilate; s.feather = feather
        s.garbage = garbage; s.core = core; s.view = keyView
        return s
    }
}

extension KeyerChoice: ExpressibleByArgument {}
extension KeyView: ExpressibleByArgument {}
extension GreenSubjects: ExpressibleByArgument {}
extension KeyShape: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
