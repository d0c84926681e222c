import Compositor
import Foundation
import Media
import Motion
import XCTest

@testable import Lockstep

/// The fast motion extraction (LumaReader + FFTW on all cores) against the measurement it
/// replaces (MovieReader + Motion's Swift PhaseCorrelator) and against movies whose motion is
/// known, made by the ffmpeg CLI.
final class FrameMotionTests: ScratchTestCase {
    /// The measurement before FFTW, kept here as the reference: full-size yuv420p frames from
    /// MovieReader, box-downscaled centre square, Swift FFT in Double.
    static func reference(_ path: String) throws -> (times: [Int64], shifts: [VideoShift]) {
        let reader = try MovieReader(path: path, audio: false)
        let size = reader.video.displaySize
        var correlator = PhaseCorrelator(size: size.height >= 256 && size.width >= 256 ? 256 : 128)
        var shifts: [VideoShift] = [], times: [Int64] = []
        var last: Int64?
        let decoded = Frame(), frame = Frame()
        // Pictures as displayed (rotation applied), in yuv420p at the display size.
        let conformer = try Conformer(
            place: size, picture: Rect(x: 0, y: 0, width: size.width, height: size.height),
            fill: .black, rotation: reader.video.rotation)
        var luma = [UInt8](repeating: 0, count: size.width * size.height)
        while case .video(let picture) = try reader.next(into: decoded, audioSink: { _ in }) {
            try conformer.fit(decoded, into: frame)
            frame.withImage { image in
                for y in 0..<image.height { luma.withUnsafeMutableBufferPointer { ($0.baseAddress! + y * image.width).update(from: image.y.row(y), count: image.width) } }
            }
            let (samples, k) = PhaseCorrelator.downscale(luma, width: size.width, height: size.height, size: correlator.size)
            let pts = picture.source.pts
            let t = Rational.rescale(pts.value, from: pts.timeBase, to: Rational(1, 1_000_000_000))
            if let s = correlator.next(samples), let from = last {
                shifts.append(VideoShift(from: from, to: t, dx: s.dx * Double(k), dy: s.dy * Double(k)))
            }
            last = t
            times.append(t)
        }
        return (times, shifts)
    }

    /// A seeded noise picture (broadband, like real footage) sampled bilinearly at (x + ox, y + oy).
    static func texture(_ size: Int, ox: Double, oy: Double) -> [UInt8] {
        var state: UInt64 = 987654321
        let grid = (0..<(320 * 320)).map { _ -> Double in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 56)
        }
        func g(_ x: Int, _ y: Int) -> Double { grid[y * 320 + x] }
        var out = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let u = Double(x) + ox + 20, v = Double(y) + oy + 20
                let x0 = Int(u), y0 = Int(v), fx = u - Double(x0), fy = v - Double(y0)
                let top = g(x0, y0) * (1 - fx) + g(x0 + 1, y0) * fx, bottom = g(x0, y0 + 1) * (1 - fx) + g(x0 + 1, y0 + 1) * fx
                out[y * size + x] = UInt8((top * (1 - fy) + bottom * fy).rounded())
            }
        }
        return out
    }

    func testTheFFTWCorrelatorMeasuresWhatTheSwiftOneDoesToAHundredthOfASample() {
        let n = 128
        let fftw = FFTWCorrelator(size: n)
        var swift = PhaseCorrelator(size: n)
        let a = CorrelationSpectrum(size: n), b = CorrelationSpectrum(size: n)
        let offsets: [(Double, Double)] = [(0, 0), (3, 2), (1.5, 2), (-4.25, 7.5), (-4.6, 6.8), (10.3, -9.7)]
        var previous: (Double, Double)?
        for (ox, oy) in offsets {
            let picture = Self.texture(n, ox: ox, oy: oy)
            picture.withUnsafeBufferPointer { fftw.spectrum(of: $0, into: b) }
            let s = swift.next(picture.map(Double.init))
            if let (px, py) = previous, let s {
                let f = fftw.shift(from: a, to: b)
                // The window looks further right and down: the content moves left and up.
                let tx = -(ox - px), ty = -(oy - py)
                XCTAssertEqual(f.dx, s.dx, accuracy: 0.01, "dx for \(ox),\(oy)")
                XCTAssertEqual(f.dy, s.dy, accuracy: 0.01, "dy for \(ox),\(oy)")
                XCTAssertEqual(f.peak, s.peak, accuracy: 0.01)
                // Against the truth: bilinear resampling of noise shifts each frequency's phase
                // a little differently, so the truth here is only good to about 0.1 sample.
                XCTAssertEqual(f.dx, tx, accuracy: 0.1); XCTAssertEqual(f.dy, ty, accuracy: 0.1)
            }
            previous = (ox, oy)
            // This picture is the next pair's earlier one.
            picture.withUnsafeBufferPointer { fftw.spectrum(of: $0, into: a) }
        }
    }

    func testOnAMovieItGivesTheSameTimesAndShiftsAsTheMeasurementItReplaces() throws {
        // A movie made by another generator (scripts/fixtures/make-synthetic-camera's pan), 320x240.
        let path = CalibrateJobTests.dir.appendingPathComponent("pan.mp4").path
        let fast = try FrameMotionExtractor.extract(path: path, workers: 3)
        let old = try Self.reference(path)
        XCTAssertEqual(fast.frameTimes, old.times.map { $0 - old.times[0] })
        XCTAssertEqual(fast.shifts.count, old.shifts.count)
        XCTAssertEqual(fast.peaks.count, fast.shifts.count)
        XCTAssertEqual(fast.displaySize, Size(width: 320, height: 240))
        var worst = 0.0
        for (f, o) in zip(fast.shifts, old.shifts) {
            XCTAssertEqual(f.from, o.from - old.times[0]); XCTAssertEqual(f.to, o.to - old.times[0])
            worst = max(worst, abs(f.dx - o.dx), abs(f.dy - o.dy))
        }
        // swscale's area filter and FFTW's float against a box filter in Double: the same to
        // a small fraction of a pixel.
        XCTAssertLessThan(worst, 0.15, "largest difference in px")
    }

    func testDecodingWhileTheWorkersMeasureGivesTheSameShiftsAsWaitingForThem() throws {
        // More than two batches, so both buffers are used twice and a batch's first pair
        // reaches back into the other buffer. At 640x360 (batches are counted in frames, not
        // pixels; a quarter of 720p's decoding): the window moves 1.5 px and 0.75 px a frame.
        let path = try makePan("long-pan.mp4", frames: 150, width: 640)
        let overlapped = try FrameMotionExtractor.extract(path: path, workers: 2, overlap: true)
        let waited = try FrameMotionExtractor.extract(path: path, workers: 2, overlap: false)
        XCTAssertEqual(overlapped.frameTimes.count, 150)
        XCTAssertEqual(overlapped.shifts.count, 149)
        XCTAssertEqual(overlapped.frameTimes, waited.frameTimes)
        XCTAssertEqual(overlapped.shifts, waited.shifts)
        XCTAssertEqual(overlapped.peaks, waited.peaks)
        // The window reaches the picture's right edge after frame 73 (ffmpeg's crop then holds x).
        for s in overlapped.shifts.prefix(70) { XCTAssertEqual(s.dx, -1.5, accuracy: 0.1); XCTAssertEqual(s.dy, -0.75, accuracy: 0.1) }
    }

    /// ffmpeg pans a window over a still picture by a known number of pixels per frame. `width`:
    /// 1280 (720p) or 640 (360p, the moves halved).
    func makePan(_ name: String, frames: Int = 30, width: Int = 1280) throws -> String {
        let out = scratch.appendingPathComponent(name).path
        // At 720p 3 px right and 1.5 px down per frame (scale 2x first, move 6 and 3, scale back). The
        // still is scaled once, before the loop repeats it: the same frames (framemd5) for a
        // fifth of the CPU as scaling each repeat.
        let filter =
            "mandelbrot=s=1600x1000:end_pts=1:maxiter=200,trim=end_frame=1,scale=3200:2000,loop=loop=\(frames + 10):size=1:start=0,setpts=N/30/TB,"
            + "crop=2560:1440:x='200+6*n':y='100+3*n',scale=\(width):\(width * 9 / 16),format=yuv420p"
        try Shell.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", filter, "-frames:v", "\(frames)", "-r", "30",
                "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", out
            ])
        return out
    }

    /// A second movie, `path`'s stream copied, tagged with a display rotation.
    func turned(_ path: String) throws -> String {
        // ffmpeg 5.1 writes the display matrix from the rotate tag when copying the stream:
        // "rotate=90" is 90 degrees counter-clockwise, so players turn it 270 clockwise.
        let turned = scratch.appendingPathComponent("turned-" + (path as NSString).lastPathComponent).path
        try Shell.check("ffmpeg", ["-v", "error", "-y", "-i", path, "-c", "copy", "-metadata:s:v:0", "rotate=90", turned])
        return turned
    }

    func testAKnownPanIsMeasuredAsShownAndAsTheReplacedMeasurementDid() throws {
        let plainPath = try makePan("pan.mp4")
        let plain = try FrameMotionExtractor.extract(path: plainPath)
        XCTAssertEqual(plain.displaySize, Size(width: 1280, height: 720))
        XCTAssertEqual(plain.frameTimes.count, 30)
        XCTAssertEqual(plain.shifts.count, 29)
        // The window moves right 3 px and down 1.5 px: the content moves left and up (the
        // half-pixel moves come from ffmpeg's scalers, so the truth is good to about 0.1 px);
        // the measurement it replaces must agree closely.
        let old = try Self.reference(plainPath)
        for (s, o) in zip(plain.shifts, old.shifts) {
            XCTAssertEqual(s.dx, -3, accuracy: 0.1); XCTAssertEqual(s.dy, -1.5, accuracy: 0.1)
            XCTAssertEqual(s.dx, o.dx, accuracy: 0.1); XCTAssertEqual(s.dy, o.dy, accuracy: 0.1)
        }
        let path = try turned(plainPath)  // the same pan, made once
        XCTAssertEqual(try LumaReader(path: path).rotation, 270)
        let turned = try FrameMotionExtractor.extract(path: path)
        XCTAssertEqual(turned.displaySize, Size(width: 720, height: 1280))
        // Turned 270 degrees clockwise: stored right is shown up, stored down is shown right:
        // the same samples turned (the periodic Hann window moves by one sample under the turn).
        XCTAssertEqual(turned.shifts.count, 29)
        for (t, p) in zip(turned.shifts, plain.shifts) {
            XCTAssertEqual(t.dx, p.dy, accuracy: 0.05); XCTAssertEqual(t.dy, -p.dx, accuracy: 0.05)
            XCTAssertEqual(t.dx, -1.5, accuracy: 0.1); XCTAssertEqual(t.dy, 3, accuracy: 0.1)
        }
    }

    /// Each block's match sits where its texture is (`BlockFlow.rowOffset`): a slow pan over a
    /// blotchy picture whose top is flat grey (a sky), 640x360. The top row of blocks reaches 107
    /// displayed px down and its top half is flat, so it is matched on its lower part; the
    /// rows below are textured all over, matched about at their centres (the pan moves 0.75 px
    /// a frame, under the half wide sample that would move the second block).
    func testTheBlocksSayWhichRowsTheyWereMatchedOn() throws {
        let out = scratch.appendingPathComponent("sky-pan.mp4").path
        // Blotches 16 px across in the 3200x2000 still (4 displayed px), its top 400 rows grey:
        // the crop shows still row 100 + 3n + 4r at displayed row r, so rows above 53-75 are flat.
        let filter =
            "color=gray:s=200x125,noise=alls=100:allf=u,trim=end_frame=1,scale=3200:2000:flags=bicubic,"
            + "drawbox=x=0:y=0:w=iw:h=400:color=gray:t=fill,loop=loop=40:size=1:start=0,setpts=N/30/TB,"
            + "crop=2560:1440:x='200+6*n':y='100+3*n',scale=640:360,format=yuv420p"
        try Shell.check(
            "ffmpeg",
            ["-v", "error", "-y", "-f", "lavfi", "-i", filter, "-frames:v", "30", "-r", "30", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", out])
        let flow = try XCTUnwrap(try FrameMotionExtractor.extract(path: out).blocks)
        XCTAssertEqual(flow.intervals, 29)
        XCTAssertEqual(flow.rowOffset.count, flow.dx.count)
        // Per row of blocks (top to bottom), the mean offset over its blocks and intervals.
        let rows = Array(Set(flow.centreY)).sorted()
        XCTAssertEqual(rows.count, 3)
        let mean = rows.map { y -> Double in
            let blocks = flow.centreY.indices.filter { flow.centreY[$0] == y }
            let offsets = (0..<flow.intervals).flatMap { k in blocks.map { Double(flow.rowOffset[k * flow.blocks + $0]) } }
            return offsets.reduce(0, +) / Double(offsets.count)
        }
        XCTAssertGreaterThan(mean[0], 10, "the top row's match sits below its centre: \(mean)")
        XCTAssertEqual(mean[1], 0, accuracy: 3, "\(mean)")
        XCTAssertEqual(mean[2], 0, accuracy: 3, "\(mean)")
    }

    /// Calibrate's series: each shift from the blocks where they fit (a shift and a turn about
    /// the centre), the whole picture's where too few blocks matched; times and rolls kept.
    func testTheCentredSeriesTakesTheBlocksWhereTheyFit() {
        let xs: [Double] = [-200, 0, 200, -200, 0, 200, -200, 0, 200], ys: [Double] = [-120, -120, -120, 0, 0, 0, 120, 120, 120]
        var flow = BlockFlow(centreX: xs, centreY: ys, width: 640)
        // Interval 0: 2 px right, 1 px up, turned 0.01 rad; interval 1: nothing matched.
        flow.append(
            dx: xs.indices.map { Float(2 - 0.01 * ys[$0]) }, dy: xs.indices.map { Float(-1 + 0.01 * xs[$0]) },
            weight: [Float](repeating: 0.9, count: 9))
        flow.append(dx: [Float](repeating: 0, count: 9), dy: [Float](repeating: 0, count: 9), weight: [Float](repeating: 0.01, count: 9))
        let whole = FrameMotionSeries(
            displaySize: Size(width: 640, height: 480), frameTimes: [0, 33, 66],
            shifts: [VideoShift(from: 0, to: 33, dx: 9, dy: 9, roll: -0.01), VideoShift(from: 33, to: 66, dx: 9, dy: 9, roll: 0)],
            peaks: [0.5, 0.5], blocks: flow)
        let c = whole.centredOnBlocks()
        XCTAssertEqual(c.shifts[0].dx, 2, accuracy: 1e-4); XCTAssertEqual(c.shifts[0].dy, -1, accuracy: 1e-4)
        XCTAssertEqual(c.shifts[1], whole.shifts[1])
        XCTAssertEqual(c.shifts[0].roll, -0.01); XCTAssertEqual(c.frameTimes, whole.frameTimes)
        // Without blocks there is nothing to centre on.
        var bare = whole; bare.blocks = nil
        XCTAssertEqual(bare.centredOnBlocks().shifts, whole.shifts)
    }
}
