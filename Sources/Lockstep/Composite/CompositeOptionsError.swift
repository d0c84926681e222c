import Engine
import Foundation

/// Why composite's options cannot work together (`CompositeOptions.check()`), found before any
/// input is opened, or why its inputs cannot be composited as asked (`CompositeJob`). Each case
/// renders the one line the user reads; values are kept as the user's line shows them.
public enum CompositeOptionsError: JobFailure, Equatable {
    // Inputs and blend.
    /// `lowest...highest` inputs the blend takes.
    case inputCount(blend: String, lowest: Int, highest: Int, got: Int)
    case notAFraction(option: String, got: Double)
    case fieldDeinterlaceInCut(byTime: Bool)
    case weightCount(expected: Int, given: Int)
    case weightNotFinite(Double)
    case weightsNotPositive
    case weightsTooLarge
    case gainCount(expected: Int, given: Int)
    case gainOutOfRange
    // Sound.
    case audioFromWithAudioNone
    case audioFromOutOfRange(Int128, inputs: Int)
    case audioFromHasNoSound(input: Int, path: String)
    case loudnessWithAudioNone
    case loudnessOutOfRange(Double)
    case loudnessFromPipe(input: Int, path: String)
    // Placing inputs in time.
    case clockCount(expected: Int, given: Int)
    case firstOffsetNotZero(got: String)
    case firstDriftNotZero(got: Double)
    case offsetTooLarge(input: Int, limit: String, got: String)
    case driftOutOfRange(input: Int, limit: Int, got: Double)
    case trimOutOfRange(input: Int, limit: String, got: String)
    case trimEndsBeforeStart(input: Int, got: String)
    case syncAudioNeedsTwoInputs
    case syncAudioWithOffsets
    case syncAudioWithIndexSync
    case placementNeedsTimeSync
    case framesAndCut
    /// `option` is --frames or --from/--to; `byTime`: a cut by time rather than a segment render.
    case cutPlacesInputs(option: String, byTime: Bool)
    /// The options named (--offsets, --drift, --trim) leave no time every input covers; `spans`
    /// says each input's used part on input 1's clock.
    case noSharedTime(options: [String], spans: [String])
    // Placing inputs on the canvas.
    case keyPlacementNeedsChromakey
    case keyPlacement(problem: String)
    case layoutNeedsGrid
    case layoutOutOfRange(rows: Int, columns: Int, limit: Int)
    case layoutTooFewCells(rows: Int, columns: Int, cells: Int, inputs: Int)
    /// `option` ("--cell-fit") needs a blend that places inputs.
    case needsPlacingBlend(option: String, verb: String)
    case borderOutOfRange(limit: Int, got: Int)
    case tooManyLabels(labels: Int, inputs: Int)
    case labelTooLong(label: Int, length: Int, limit: Int, side: Int)
    case pipNeedsPipBlend
    case pipSizeOutOfRange(lowest: Double, highest: Double, got: Double)
    case canvasTooSmallForCells(canvas: String, blend: String, rows: Int, columns: Int)
    case alphaOffCanvas(input: Int, path: String)
    // HDR out.
    case hdrWithFilters(hdr: String)
    case hdrWithSnake(hdr: String)
    case hdrWithMatte(hdr: String)
    case hdrInSegments(hdr: String)
    case hdrWithDrawing(hdr: String)
    case hdrAlphaInput(hdr: String, input: Int, path: String)

    public var description: String {
        switch self {
        case .inputCount(let blend, let lowest, let highest, let got):
            "--blend \(blend) takes \(Self.wanted(blend: blend, lowest, highest)); got \(got)."
        case .notAFraction(let option, let got): "\(option) must be between 0 and 1; got \(got)."
        case .fieldDeinterlaceInCut(let byTime):
            "--deinterlace field cannot be combined with \(byTime ? "--from/--to" : "--frames or --segments"): a \(byTime ? "cut" : "segment") would not start on the field the single pass shows there."
        case .weightCount(let expected, let given): "--weights needs one weight per input: \(expected) expected, \(given) given."
        case .weightNotFinite(let bad): "--weights must be finite numbers; got \(bad)."
        case .weightsNotPositive: "--weights must be zero or positive, and not all zero."
        case .weightsTooLarge: "--weights are too large: their sum is not a finite number."
        case .gainCount(let expected, let given): "--gain needs one gain per input: \(expected) expected, \(given) given."
        case .gainOutOfRange: "--gain values must be between 0 and 16."
        case .audioFromWithAudioNone: "--audio-from and --audio none contradict each other: choose one."
        case .audioFromOutOfRange(let n, let inputs):
            "--audio-from \(n): there \(inputs == 1 ? "is 1 input" : "are \(inputs) inputs"); give 1 to \(inputs)."
        case .audioFromHasNoSound(let input, let path): "--audio-from \(input + 1): input \(input + 1) (\(path)) has no audio stream Lockstep can decode."
        case .loudnessWithAudioNone: "--loudness needs sound, and --audio none writes none."
        case .loudnessOutOfRange(let got): "--loudness must be r128 (-23 LUFS) or a target between -70 and -5 LUFS; got \(got)."
        case .loudnessFromPipe(let input, let path):
            "--loudness measures the sound before the job, and input \(input + 1) (\(path)) is a pipe, which can be read only once."
        case .clockCount(let expected, let given):
            "--offsets, --drift and --trim need one value per input: \(expected) expected, \(given) given."
        case .firstOffsetNotZero(let got): "--offsets: the first input is the clock the others are placed on, so its offset must be 0; got \(got)."
        case .firstDriftNotZero(let got): "--drift: the first input is the clock the others are measured against, so its drift must be 0; got \(got)."
        case .offsetTooLarge(let input, let limit, let got): "--offsets: input \(input + 1)'s offset must be within \(limit) s; got \(got)."
        case .driftOutOfRange(let input, let limit, let got): "--drift: input \(input + 1)'s drift must be between -\(limit) and \(limit) ppm; got \(got)."
        case .trimOutOfRange(let input, let limit, let got):
            "--trim: input \(input + 1)'s trim must lie between 0 and \(limit) s of its own time; got \(got)."
        case .trimEndsBeforeStart(let input, let got): "--trim: input \(input + 1)'s trim must end after it starts; got \(got)."
        case .syncAudioNeedsTwoInputs: "--sync audio places inputs by the first one's sound, and there is only one input."
        case .syncAudioWithOffsets: "--sync audio finds the offsets and drifts from the sound; --offsets and --drift give them: choose one."
        case .syncAudioWithIndexSync: "--sync audio places inputs in time; it cannot be combined with index sync."
        case .placementNeedsTimeSync:
            "--offsets, --drift, --trim and --longest need time sync (--sync time or audio): index sync takes frame k of every input, whatever its time."
        case .framesAndCut: "--frames and --from/--to both choose the output's frames; give one."
        case .cutPlacesInputs(let option, let byTime):
            "\(option) cannot be combined with --sync audio, --offsets, --drift, --trim or --longest: a \(byTime ? "cut" : "segment render") places inputs only from their first frames."
        case .noSharedTime(let options, let spans):
            "\(options.isEmpty ? "The inputs' places" : Self.list(options)) \(options.count == 1 ? "leaves" : "leave") no time that every input covers (on input 1's clock): "
                + spans.joined(separator: ", ") + "."
        case .keyPlacementNeedsChromakey: "--fg-scale, --fg-position and --bg-fit need --blend chromakey."
        case .keyPlacement(let problem): problem
        case .layoutNeedsGrid: "--layout needs --blend grid (quad is always 2x2; pip places its insets itself)."
        case .layoutOutOfRange(let rows, let columns, let limit): "--layout \(rows)x\(columns): rows and columns must be between 1 and \(limit)."
        case .layoutTooFewCells(let rows, let columns, let cells, let inputs):
            "--layout \(rows)x\(columns) has \(cells) cell\(cells == 1 ? "" : "s") for \(inputs) inputs."
        case .needsPlacingBlend(let option, let verb): "\(option) \(verb) --blend grid, quad or pip."
        case .borderOutOfRange(let limit, let got): "--border must be between 0 and \(limit) pixels; got \(got)."
        case .tooManyLabels(let labels, let inputs): "--label is given \(labels) times for \(inputs) inputs."
        case .labelTooLong(let label, let length, let limit, let side):
            "--label \(label + 1) is \(length) characters long; a label is at most \(limit) (the widest canvas, \(side) pixels, shows no more)."
        case .pipNeedsPipBlend: "--pip-corner and --pip-size need --blend pip."
        case .pipSizeOutOfRange(let lowest, let highest, let got):
            "--pip-size must be between \(lowest) and \(highest) (a share of the canvas width); got \(got)."
        case .canvasTooSmallForCells(let canvas, let blend, let rows, let columns):
            "--size \(canvas) is too small for \(blend): its \(rows) rows and \(columns) columns of cells need at least 2x2 pixels each"
        case .alphaOffCanvas(let input, let path):
            "input \(input + 1) (\(path)) has alpha: --fg-scale and --fg-position must leave all of it on the canvas (an alpha input is not cropped)."
        case .hdrWithFilters(let hdr):
            "--hdr \(hdr) cannot be combined with filters: they work on the SDR working signal (8-bit BT.709); filter in SDR, or composite without them."
        case .hdrWithSnake(let hdr): "--hdr \(hdr) cannot be combined with --snake: the snake draws on the SDR working signal (8-bit BT.709)."
        case .hdrWithMatte(let hdr): "--hdr \(hdr) cannot be combined with --matte: mattes are mixed on the SDR working signal (8-bit BT.709)."
        case .hdrInSegments(let hdr): "--hdr \(hdr) cannot be combined with --frames or --segments: segment renders are H.264 only."
        case .hdrWithDrawing(let hdr):
            "--hdr \(hdr) cannot be combined with --border or --labels: they are drawn on the SDR working signal (8-bit BT.709)."
        case .hdrAlphaInput(let hdr, let input, let path):
            "--hdr \(hdr) cannot key input \(input + 1) (\(path)) by its alpha: alpha inputs are keyed on the SDR working signal; leave out --hdr."
        }
    }

    /// "exactly 2 inputs (FOREGROUND BACKGROUND)", "exactly 1 input", "2 to 16 inputs".
    private static func wanted(blend: String, _ lowest: Int, _ highest: Int) -> String {
        guard lowest == highest else { return "\(lowest) to \(highest) inputs" }
        return blend == "chromakey" ? "exactly 2 inputs (FOREGROUND BACKGROUND)" : "exactly \(lowest) input\(lowest == 1 ? "" : "s")"
    }

    /// "--offsets", "--offsets and --trim", "--offsets, --drift and --trim".
    private static func list(_ named: [String]) -> String {
        named.count < 3 ? named.joined(separator: " and ") : named.dropLast().joined(separator: ", ") + " and " + named.last!
    }
}
