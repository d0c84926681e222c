import ArgumentParser
import Foundation
import Lockstep

extension GridSpec.Shape: ExpressibleByArgument {
    /// "3x3": rows x columns.
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let r = Int(parts[0]), let c = Int(parts[1]) else { return nil }
        self.init(rows: r, columns: c)
    }
}
extension GridSpec.Fit: ExpressibleByArgument {}
extension GridSpec.Corner: ExpressibleByArgument {}

/// Where each input goes under --blend grid, quad and pip.
struct GridArguments: ParsableArguments {
    @Option(help: ArgumentHelp("grid: rows x columns, enough cells for the inputs (default: the smallest near-square grid: 3 or 4 inputs 2x2, 5 or 6 2x3, up to 9 3x3).", valueName: "RxC"))
    var layout: GridSpec.Shape?

    @Option(
        name: .customLong("cell-fit"),
        help: ArgumentHelp("fit: all of each picture, bars where its shape differs from its cell's; fill: the cell covered, the picture's overflow cropped.", valueName: "fit|fill"))
    var cellFit: GridSpec.Fit = .fit

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A line this wide (pixels) around each cell, or each inset under pip; an odd width is drawn one wider, as 4:2:0 pictures store their colour once per 2x2 pixels.",
            valueName: "px"))
    var border: Int = 0

    @Option(name: .customLong("border-color"), help: ArgumentHelp("The border's colour (default: FFFFFF, white).", valueName: "RRGGBB"))
    var borderColor: RGB?

    @Flag(help: "Each input's file name in its cell's bottom-left corner.")
    var labels = false

    @Option(
        help: ArgumentHelp(
            "A label's text, once per input in order (the inputs without one keep their file name); implies --labels. Cut to its cell's width; at most 2730 characters.",
            valueName: "TEXT"))
    var label: [String] = []

    @Option(name: .customLong("pip-corner"), help: ArgumentHelp("pip: where the insets go.", valueName: "top-left|top-right|bottom-left|bottom-right"))
    var pipCorner: GridSpec.Corner = .bottomRight

    @Option(name: .customLong("pip-size"), parsing: .unconditional, help: ArgumentHelp("pip: each inset's width as a share of the canvas's (0.05 to 0.9).", valueName: "share"))
    var pipSize: Double = 0.3

    func spec(inputs: [String]) -> GridSpec {
        var g = GridSpec()
        g.layout = layout
        g.fit = cellFit
        g.border = border
        if let borderColor { g.borderColor = borderColor }
        if labels || !label.isEmpty {
            let names = inputs.map { ($0 as NSString).lastPathComponent }
            g.labels = label.count > inputs.count ? label : label + names.dropFirst(label.count)
        }
        g.pip.corner = pipCorner
        g.pip.size = pipSize
        return g
    }
}
