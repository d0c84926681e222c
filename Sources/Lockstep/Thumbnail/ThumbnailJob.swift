import Compositor
import Foundation
import Media

/// `--at` asks for a time the clip does not have: a bad option, not a failure (the CLI ends it
/// as a usage error, without the usage text).
public struct ThumbnailOptionError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
}

/// Writes one clip's thumbnail, or a contact sheet of several, as PNG or JPEG. For each clip
/// `ThumbnailSearch` finds the first real picture from the start point; the `Conformer` turns it
/// as players do and fits it to its size; `ImageEncoder` encodes it with FFmpeg's png or mjpeg;
/// the file is written under a temporary name beside the output and renamed into place only
/// when complete. `cancel()` may come from any thread.
public final class ThumbnailJob: Job {
    public let options: ThumbnailOptions
    private let cancellation = CancellationToken()

    /// A thumbnail has no progress to tell: `events` is not used.
    public init(options: ThumbnailOptions, events: JobEvents = JobEvents()) { self.options = options }

    public func cancel() { cancellation.cancel() }

    /// Sheet colours: a dark page, a slightly lighter box behind each tile (so a picture that
    /// does not fill its tile shows where the tile is), white names, grey durations.
    static let page = YUVColor(rgb: RGB(r: 24, g: 24, b: 24))
    static let tileBox = YUVColor(rgb: RGB(r: 48, g: 48, b: 48))
    static let nameColor = YUVColor(rgb: RGB(r: 255, g: 255, b: 255))
    static let durationColor = YUVColor(rgb: RGB(r: 170, g: 170, b: 170))

    public func run() throws -> ThumbnailResult {
        do {
            return try write()
        } catch let e as MediaError where e.kind == .cancelled {
            throw JobError.cancelled  // FFmpeg gave up because we asked it to: not the file's fault
        }
    }

    private func write() throws -> ThumbnailResult {
        try options.check()
        for input in options.inputs { try OutputPath.checkInput(input) }
        try OutputPath.checkPlace(options.output, inputs: options.inputs)
        let format = ImageFormat(extensionOf: options.output)!
        return try OutputPath.writing(to: options.output) { file in
            let (picture, result) = options.sheet ? try makeSheet() : try makeSingle()
            let bytes = try ImageEncoder.encode(picture, as: format)
            if cancellation.isCancelled { throw JobError.cancelled }
            try file.writeAll(Data(bytes))
            if cancellation.isCancelled { throw JobError.cancelled }
            return result
        }
    }

    /// Opens a clip and finds its picture: the frame on screen at `--at` when given (a time the
    /// user gives is the time they get: `--at 0` on a phone clip with an edit list gave its last
    /// frame, the search's pick), else the search's from a third of the way in.
    private func find(_ input: String) throws -> (StillReader, FoundPicture, ThumbnailPick) {
        let reader = try StillReader(path: input, cancellation: cancellation)
        let found: FoundPicture
        if let at = options.at {
            if let d = reader.duration, at >= d {
                throw ThumbnailOptionError(description: "--at \(Self.seconds(at)): \(input) is only \(Self.seconds(d)) long.")
            }
            found = try ThumbnailSearch.frame(in: reader, at: at)
        } else {
            found = try ThumbnailSearch.find(in: reader, from: (reader.duration ?? 0) / 3, cancellation: cancellation)
        }
        if cancellation.isCancelled { throw JobError.cancelled }
        let pick = ThumbnailPick(
            input: input, time: found.time, duration: reader.duration, fallback: found.fallback, examined: found.examined, verdict: found.verdict)
        return (reader, found, pick)
    }

    private func warnings(_ picks: [ThumbnailPick]) -> [String] {
        picks.compactMap { p in
            if options.at != nil {
                return p.verdict == .picture
                    ? nil : "\(p.input): the frame at \(Self.seconds(p.time)) is \(p.verdict == .black ? "black" : "flat"); written as asked (without --at, the search finds a picture)."
            }
            return p.fallback ? "\(p.input): every frame examined (\(p.examined)) is black or flat; wrote the most detailed one, at \(Self.seconds(p.time))." : nil
        }
    }

    private func makeSingle() throws -> (Frame, ThumbnailResult) {
        let (reader, found, pick) = try find(options.inputs[0])
        let display = reader.video.displaySize
        let fitted = (options.size ?? .box(display)).fitted(display)
        // At least 2x2, the Conformer's smallest place (a 1x1 clip said "no room for the picture").
        let size = Size(width: max(2, fitted.width), height: max(2, fitted.height))
        let out = Frame()
        do { try Self.conform(found.frame, into: out, place: size, rotation: reader.video.rotation) } catch let e as MediaError { throw e.at(reader.path) }
        return (out, ThumbnailResult(size: size, picks: [pick], warnings: warnings([pick])))
    }

    private func makeSheet() throws -> (Frame, ThumbnailResult) {
        let tileSize = options.size.map { $0.box(for: Self.defaultAspect) } ?? ThumbnailOptions.defaultTile
        let layout = ContactSheetLayout(count: options.inputs.count, tile: tileSize)
        let sheet = try Frame(width: layout.canvas.width, height: layout.canvas.height, color: Self.page)
        let tile = Frame()
        var picks: [ThumbnailPick] = []
        for (i, input) in options.inputs.enumerated() {
            let (reader, found, pick) = try find(input)
            picks.append(pick)
            let box = layout.tiles[i]
            let place = Layout.fit(reader.video.displaySize, into: box)
            do {
                try Self.conform(found.frame, into: tile, place: Size(width: place.width, height: place.height), rotation: reader.video.rotation)
            } catch let e as MediaError { throw e.at(reader.path) }
            let name = URL(fileURLWithPath: input).lastPathComponent
            let label = layout.labels[i]
            sheet.withImage { canvas in
                PlaneKernels.fill(canvas, Self.tileBox, in: box)
                tile.withImage { PlaneKernels.copy($0, into: canvas.cropped(to: place)) }
                let s = layout.labelScale
                BitmapFont.draw(
                    ContactSheetLayout.fit(name, width: label.width, scale: s), into: canvas,
                    x: label.x, y: label.y, scale: s, color: Self.nameColor)
                BitmapFont.draw(
                    ContactSheetLayout.durationLabel(seconds: reader.duration ?? .nan), into: canvas,
                    x: label.x, y: label.y + layout.lineStep, scale: s, color: Self.durationColor)
            }
        }
        return (sheet, ThumbnailResult(size: layout.canvas, picks: picks, warnings: warnings(picks)))
    }

    /// The picture turned and fitted to `place` by the `Conformer`, in the working signal
    /// (BT.709 SDR, whatever the source's matrix, range or HDR transfer), which the image
    /// encoder converts to RGB or JPEG's BT.601.
    static func conform(_ decoded: Frame, into out: Frame, place: Size, rotation: Int) throws {
        try Conformer(
            place: place, picture: Rect(x: 0, y: 0, width: place.width, height: place.height),
            fill: .black, rotation: rotation
        ).fit(decoded, into: out)
    }

    /// A sheet's `--size` with one side: the other follows 16:9.
    static let defaultAspect = Size(width: 16, height: 9)

    static func seconds(_ s: Double) -> String { String(format: "%.3f s", s) }
}
