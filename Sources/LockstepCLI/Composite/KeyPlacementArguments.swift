import ArgumentParser
import Foundation
import Lockstep

/// Where `chromakey` puts the keyed foreground and the background: `--fg-scale`,
/// `--fg-position`, `--bg-fit`. They fill `CompositeOptions.keyPlacement`; the library checks
/// them (`CompositeOptions.checkKeyPlacement`), so a Swift caller gets the same sentences.
struct KeyPlacementArguments: ParsableArguments {
    @Option(
        name: .customLong("fg-scale"), parsing: .unconditional,
        help: ArgumentHelp("chromakey: the foreground's size against its fit to the canvas (more than 0, at most 4; over 1 it is cropped where it overhangs).", valueName: "F"))
    var fgScale: Double = 1

    @Option(
        name: .customLong("fg-position"), parsing: .unconditional,
        help: ArgumentHelp(
            "chromakey: where the foreground lies, as shares of the room left around it: 0,0 its top-left corner on the canvas's, 1,1 its bottom-right corner on the canvas's (default 0.5,0.5: centred); or center, top, bottom, left, right, top-left, top-right, bottom-left, bottom-right.",
            valueName: "X,Y"))
    var fgPosition: Position?

    @Option(
        name: .customLong("bg-fit"),
        help: ArgumentHelp("chromakey: fit: all of the background, bars where its shape differs from the canvas's; fill: the canvas covered, the background's overflow cropped.", valueName: "fit|fill")
    )
    var bgFit: GridSpec.Fit = .fit

    var placement: KeyPlacement {
        var p = KeyPlacement()
        p.scale = fgScale
        if let fgPosition { p.x = fgPosition.x; p.y = fgPosition.y }
        p.backgroundFit = bgFit
        return p
    }

    /// "0.25,1" or a named position ("bottom-left").
    struct Position: ExpressibleByArgument {
        var x: Double, y: Double
        init?(argument: String) {
            let text = argument.lowercased().trimmingCharacters(in: .whitespaces)
            if let anchor = KeyPlacement.anchors.first(where: { $0.name == text }) {
                x = anchor.x; y = anchor.y
                return
            }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1] else { return nil }
            self.x = x; self.y = y
        }
    }
}
