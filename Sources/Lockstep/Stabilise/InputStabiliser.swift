import Compositor
import Engine
import Foundation
import Media
import Motion

/// One input's stabiliser, a per-input stage of the composite pipeline: after the lane fitted
/// the picture to its place (conform), before the blend, the picture part of the place is
/// warped through the inverse map of its frame's time (`Stabilisation`, a grid per frame:
/// `WarpMap`) into a frame of this stage's own, which the blend then reads. A source frame
/// shown on several ticks is warped once. Runs on the compositor thread; nothing is allocated
/// per frame.
final class InputStabiliser {
    let input: Int
    let path: String
    let stabilisation: Stabilisation
    let zoom: ZoomPlan
    /// The picture within the lane's place (the rest is margin, copied as it is).
    let picture: Rect
    let place: Size
    private let map: WarpMap
    private let turns: RowTurns
    private let out: Frame
    /// The input's first frame's pts, ns: the motion's time origin (its clock has v = 0 there).
    /// A cut or a segment (`--from/--to`, `--frames`) starts reading later, so its job sets it
    /// from the input's index before the first frame (`origin`); a whole run takes the first
    /// frame's own. Without it a cut at 5 s would be warped with the gyro of 0 s.
    private var firstPts: Int64?
    private var lastIndex: Int?
    /// `--export-path`: its rows so far.
    private let exportPath: String?
    private var exportRows: [String] = []
    private(set) var notes: [String]

    init(input: Int, path: String, motion: StabiliseMotion, settings: StabiliseSettings, place: Size, picture: Rect, signal: WorkingSignal, fps: Double, duration: Double?, exportPath: String?) throws
    {
        self.input = input; self.path = path; self.place = place; self.picture = picture; self.exportPath = exportPath
        stabilisation = Stabilisation.make(
            camera: motion.camera, lens: motion.lens, width: picture.width, height: picture.height, settings: settings, gravity: motion.gravity)
        notes = motion.notes
        if settings.horizonLock != nil && motion.gravity == nil {
            notes.append("\(path): --horizon-lock: the trace has no accelerometer to find gravity by; the horizon is not levelled")
        }
        // The zoom is planned at the nominal frame times over the clip (a dense sampling of any
        // frame times), read at each frame's own.
        let span = duration ?? Double(motion.camera.times.last!) / 1e9
        let step = 1 / max(fps, 1)
        let times = stride(from: 0.0, through: max(0, span), by: step).map { Int64(($0 * 1e9).rounded()) }
        zoom = ZoomPlan(stabilisation, times: times, mode: settings.zoom, maxZoom: settings.maxZoom, fps: fps)
        if zoom.framesOverCap > 0 {
            let needed = zoom.largestNeeded.isFinite ? String(format: "%.2f", zoom.largestNeeded) : "more than 4"
            notes.append(
                "\(path): \(zoom.framesOverCap) of \(times.count) frames would need a zoom of up to \(needed) to hide every border, above --max-zoom \(settings.maxZoom): their borders show")
        }
        map = WarpMap(width: picture.width, height: picture.height)
        turns = RowTurns(rows: picture.height)
        out = try Frame(width: place.width, height: place.height, signal: signal)
        if exportPath != nil {
            exportRows.append("frame,time_s,camera_w,camera_x,camera_y,camera_z,smoothed_w,smoothed_x,smoothed_y,smoothed_z,zoom")
        }
    }

    /// The time origin: the input's first frame (`SegmentSetup.origins`), before any frame.
    func setOrigin(_ origin: Timestamp) {
        firstPts = Rational.rescale(origin.value, from: origin.timeBase, to: Rational(1, 1_000_000_000))
    }

    /// The stabilised picture of `frame` (this input's source frame `source`), in this stage's
    /// own frame: valid until the next call.
    func apply(_ frame: Frame, source: SourceFrame) -> Frame {
        if lastIndex == source.index { return out }
        lastIndex = source.index
        let ns = Rational.rescale(source.pts.value, from: source.pts.timeBase, to: Rational(1, 1_000_000_000))
        if firstPts == nil { firstPts = ns }
        let t = ns - firstPts!
        let z = zoom.zoom(at: t)
        stabilisation.fillGrid(frame: t, zoom: z, cell: map.cell, columns: map.columns, rows: map.rows, into: map.grid, turns: turns)
        // `out` is never handed to the encoder (the blend copies it): always writable.
        let whole = picture.x == 0 && picture.y == 0 && picture.width == place.width && picture.height == place.height
        if frame.isHDR {
            frame.withImage16 { src in
                out.withImage16 { dst in
                    if !whole { PlaneKernels16.copy(src, into: dst) }
                    map.warp(src.cropped(to: picture), into: dst.cropped(to: picture))
                }
            }
        } else {
            frame.withImage { src in
                out.withImage { dst in
                    if !whole { PlaneKernels.copy(src, into: dst) }
                    map.warp(src.cropped(to: picture), into: dst.cropped(to: picture))
                }
            }
        }
        if exportPath != nil { export(index: source.index, time: t, zoom: z) }
        return out
    }

    private func export(index: Int, time t: Int64, zoom z: Double) {
        let c = stabilisation.camera.orientation(at: t), s = stabilisation.smoothed.orientation(at: t)
        func q(_ q: Quaternion) -> String { String(format: "%.9f,%.9f,%.9f,%.9f", q.w, q.x, q.y, q.z) }
        exportRows.append("\(index),\(String(format: "%.6f", Double(t) / 1e9)),\(q(c)),\(q(s)),\(String(format: "%.4f", z))")
    }

    /// After the last frame: the export, written whole (nothing under its name before).
    func finish() throws {
        guard let exportPath else { return }
        try OutputPath.write(Data((exportRows.joined(separator: "\n") + "\n").utf8), to: exportPath)
    }
}

/// The inputs' stabilisers (nil for an input not stabilised), made before the first frame.
enum InputStabilisers {
    static func make(
        _ options: CompositeOptions, readers: [MovieReader], lanes: [InputLane], frameRate: Rational, cancellation: CancellationToken
    ) throws -> [InputStabiliser?] {
        guard let request = options.stabilise else { return [] }
        return try (0..<options.inputs.count).map { i -> InputStabiliser? in
            guard request.applies(to: i) else { return nil }
            let reader = readers[i], lane = lanes[i]
            if lane.alphaConformer != nil {
                throw StabiliseError.alphaInput(input: i, path: reader.path)
            }
            let place = lane.conformer.place
            // The part of the picture inside its place (a cropped fit overhangs), on even pixels (4:2:0).
            let p = lane.conformer.picture
            let x0 = (max(p.x, 0) + 1) & ~1, y0 = (max(p.y, 0) + 1) & ~1
            let pic = Rect(x: x0, y: y0, width: (min(p.x + p.width, place.width) - x0) & ~1, height: (min(p.y + p.height, place.height) - y0) & ~1)
            guard pic.width >= 2, pic.height >= 2 else { return nil }
            let duration = (reader.video.duration ?? reader.containerDuration)?.seconds
            // The lens is the movie's (its displayed size); the picture in its place may be scaled.
            let display = reader.video.displaySize
            var motion = try StabiliseMotion.load(video: reader.path, options: request.options, size: display, duration: duration, cancellation: cancellation)
            if pic.width != display.width { motion.lens = motion.lens.scaled(Double(pic.width) / Double(display.width)) }
            let fps = (reader.video.frameRate ?? frameRate).seconds
            // The readout this input's motion settled on (--rolling-shutter, else the lens
            // profile's, else the calibration's; global for a picture the camera stabilised): the
            // options' own shutter is only --rolling-shutter's, so the other two were never applied.
            var settings = request.options.settings
            settings.shutter = motion.shutter
            return try InputStabiliser(
                input: i, path: reader.path, motion: motion, settings: settings, place: place,
                picture: pic, signal: options.signal, fps: fps, duration: duration, exportPath: request.options.exportPath)
        }
    }
}
