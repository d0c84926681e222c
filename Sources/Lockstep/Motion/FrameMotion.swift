import Compositor
import Dispatch
import Foundation
import Media
import Motion

/// The picture's own motion, frame to frame: what the gyro is matched against.
public struct FrameMotionSeries: Sendable {
    /// The video as stored and as shown (rotation applied), pixels.
    public var displaySize: Size
    /// Every decoded frame's time on the video clock: ns from the first frame's pts (the
    /// contract's v = 0 at the first frame; VFR-exact).
    public var frameTimes: [Int64]
    /// Global shift between consecutive frames, in pixels of the displayed picture.
    public var shifts: [VideoShift]
    /// Per shift (same order): the phase correlation's peak height, about 1 when the second
    /// picture is the first one moved, near 0 when nothing matched (a cut, a blur, a flat wall).
    public var peaks: [Double]
    /// How regions across the whole picture moved (one row per shift), where measured: the
    /// roll and the lens come from it. The shifts then carry the roll.
    public var blocks: BlockFlow?

    public init(displaySize: Size, frameTimes: [Int64], shifts: [VideoShift], peaks: [Double] = [], blocks: BlockFlow? = nil) {
        self.displaySize = displaySize; self.frameTimes = frameTimes; self.shifts = shifts; self.peaks = peaks; self.blocks = blocks
    }

    /// The same series with each shift taken at the picture's centre from the blocks
    /// (`CentreShift`) where they fit, the whole picture's where they do not: what calibrate
    /// matches the gyro against (CentreShift says why). Without blocks, the series unchanged.
    public func centredOnBlocks() -> FrameMotionSeries {
        guard let flow = blocks, flow.intervals == shifts.count else { return self }
        var out = self
        for i in shifts.indices {
            if let c = CentreShift.fit(flow, interval: i) { out.shifts[i].dx = c.dx; out.shifts[i].dy = c.dy }
        }
        return out
    }
}

/// Where the blocks sit in the wide picture: a grid of `side` x `side` squares over it, their
/// edges touching the picture's (5 across; rows in proportion).
struct BlockGrid: Sendable {
    let side: Int
    let width: Int, height: Int
    /// Top-left corners in the wide picture.
    let origins: [(x: Int, y: Int)]

    init?(wide: Size, side: Int = 64) {
        guard wide.width >= side * 2, wide.height >= side + side / 2 else { return nil }
        self.side = side; width = wide.width; height = wide.height
        let cols = 5
        let rows = max(2, min(5, Int((Double(cols) * Double(wide.height) / Double(wide.width)).rounded())))
        var o: [(Int, Int)] = []
        for r in 0..<rows {
            for c in 0..<cols {
                o.append(((wide.width - side) * c / (cols - 1), (wide.height - side) * r / (rows - 1)))
            }
        }
        origins = o
    }

    var count: Int { origins.count }

    /// Block centres in displayed pixels from the picture's centre.
    func centres(display: Size) -> (x: [Double], y: [Double]) {
        let k = Double(display.width) / Double(width), ky = Double(display.height) / Double(height)
        return (
            origins.map { (Double($0.x) + Double(side) / 2 - Double(width) / 2) * k },
            origins.map { (Double($0.y) + Double(side) / 2 - Double(height) / 2) * ky }
        )
    }
}

/// Decodes a movie once and measures the global shift between consecutive frames by phase
/// correlation on downscaled luma.
///
/// How it is fast: `LumaReader` decodes with FFmpeg's frame threads and box-averages the small
/// pictures straight from the luma plane in one pass; frames are then taken in batches, and each batch's pairs are
/// cut into one contiguous run per core, measured in parallel (a run computes the spectrum of
/// the picture before it once more: one extra FFT per run, and no worker ever reads what
/// another wrote), each worker with its own FFTW plans. Two batch buffers take turns: the
/// workers measure one batch while this thread decodes the next into the other, so the
/// decoder's threads never wait for the correlations.
public enum FrameMotionExtractor {
    /// Frames per batch: enough to keep every core busy, small enough to bound memory
    /// (about 4 MB of analysis squares at 256, twice).
    static let batch = 64
    /// The wide picture's width for the blocks: 384 samples (5 blocks of 64 across, overlapping).
    static let wideWidth = 384

    /// `overlap`: false waits for each batch's correlations before decoding the next (the way it
    /// was before the two buffers; timed against the overlap once: docs/calibrate.md, "Speed"). The results are the same either way (FrameMotionTests).
    /// `cancellation`: checked before each picture; once raised, the batch in flight is waited
    /// for and `JobError.cancelled` thrown (a stop signal under `lockstep calibrate`).
    /// `blocks`: also measure the motion of regions across the whole picture (the roll, the lens).
    public static func extract(
        path: String, workers: Int? = nil, overlap: Bool = true, blocks: Bool = true,
        cancellation: CancellationToken = CancellationToken(), progress: ((_ done: Int64, _ expected: Int64?) -> Void)? = nil
    ) throws -> FrameMotionSeries {
        let reader = try LumaReader(path: path, wideWidth: blocks ? wideWidth : nil, cancellation: cancellation)
        let n = reader.side, area = n * n, k = Double(reader.scale)
        let grid = reader.wideSize.flatMap { BlockGrid(wide: $0) }
        let wideArea = grid.map { $0.width * $0.height } ?? 0
        // Wide samples per displayed pixel: the global shift (displayed) becomes the blocks' head start.
        let toWide = grid.map { Double($0.width) / Double(reader.displaySize.width) } ?? 0
        let workerCount = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
        let pool = (0..<workerCount).map { _ in CorrelationWorker(size: n, grid: grid, toWide: toWide * k) }
        let buffers = [PictureBatch(slots: batch + 1, area: area, wideArea: wideArea), PictureBatch(slots: batch + 1, area: area, wideArea: wideArea)]
        var flow = grid.map { g -> BlockFlow in
            let c = g.centres(display: reader.displaySize)
            return BlockFlow(centreX: c.x, centreY: c.y, width: reader.displaySize.width)
        }
        let fromWide = grid.map { Double(reader.displaySize.width) / Double($0.width) } ?? 0
        let rowsFromWide = grid.map { Double(reader.displaySize.height) / Double($0.height) } ?? 0
        let group = WorkGroup()
        var times: [Int64] = []
        var shifts: [VideoShift] = []
        var peaks: [Double] = []
        // The batch being measured: its pairs' times (from, to), in the workers' order.
        var pending: [(from: Int64, to: Int64)] = []
        var pendingRuns = 0
        var pairTimes: [(from: Int64, to: Int64)] = []
        pairTimes.reserveCapacity(batch)
        var origin: Int64?
        var turn = 0

        // Waits for the batch in flight and files its shifts.
        func collect() {
            guard pendingRuns > 0 else { return }
            group.wait()
            var results = pool.prefix(pendingRuns).lazy.flatMap(\.results).makeIterator()
            var blockResults = pool.prefix(pendingRuns).lazy.flatMap(\.blockResults).makeIterator()
            for p in pending {
                let r = results.next()!
                shifts.append(VideoShift(from: p.from, to: p.to, dx: r.dx * k, dy: r.dy * k))
                peaks.append(r.peak)
                if flow != nil, let b = blockResults.next() {
                    flow!.append(
                        dx: b.dx.map { Float(Double($0) * fromWide) }, dy: b.dy.map { Float(Double($0) * fromWide) }, weight: b.peak,
                        rowOffset: b.row.map { Float(Double($0) * rowsFromWide) })
                }
            }
            pendingRuns = 0
        }

        while true {
            let pictures = buffers[turn]
            // Slot 0 holds the previous batch's last picture; slots 1...batch this batch's.
            var count = 0
            while count < batch {
                if cancellation.isCancelled { group.wait(); throw JobError.cancelled }
                guard let t = try pictures.withSlots(count + 1, { try reader.next(into: $0, wide: $1) }) else { break }
                pictures.times[count] = t
                count += 1
            }
            // The other buffer's batch is measured by now or soon: file it before this one starts.
            collect()
            if count == 0 { break }
            progress?(Int64(times.count + count), reader.listedFrames)
            if origin == nil { origin = pictures.times[0] }
            // Pairs end at slots first...count: slot 0 is a picture only after the first batch.
            let first = times.isEmpty ? 2 : 1
            pairTimes.removeAll(keepingCapacity: true)
            var previous = times.last
            for j in 0..<count {
                let t = pictures.times[j] - origin!
                if j + 1 >= first, let from = previous { pairTimes.append((from, t)) }
                previous = t
                times.append(t)
            }
            let pairs = pairTimes.count
            let runs = min(workerCount, pairs)
            if runs > 0 {
                swap(&pending, &pairTimes)
                pendingRuns = runs
                group.start(runs) { w in
                    let lo = first + pairs * w / runs, hi = first + pairs * (w + 1) / runs
                    pool[w].measure(pictures, pairsEndingAt: lo..<hi)
                }
                if !overlap { collect() }
            }
            // This batch's last picture becomes slot 0 of the next batch (read while the workers read it).
            buffers[1 - turn].copySlot(0, from: pictures, slot: count)
            turn = 1 - turn
        }
        collect()
        if let f = flow, f.intervals == shifts.count {
            // The roll of each interval, from the blocks (a global shift cannot see it).
            for (i, roll) in PictureRotation.rolls(f).enumerated() { shifts[i].roll = roll }
        } else {
            flow = nil
        }
        return FrameMotionSeries(displaySize: reader.displaySize, frameTimes: times, shifts: shifts, peaks: peaks, blocks: flow)
    }
}

/// One batch of analysis squares (`slots` x `area` bytes) and their times, handed between the
/// decoding thread and the workers.
final class PictureBatch: @unchecked Sendable {
    // @unchecked: the decoding thread writes a batch only while no worker has it (the batch
    // before was collected, group.wait()); the workers only read it, and the decoding thread
    // meanwhile reads its last slot and writes only the other batch.
    let area: Int
    let bytes: UnsafeMutableBufferPointer<UInt8>
    /// The wide pictures (0 bytes each when not measured).
    let wideArea: Int
    let wide: UnsafeMutableBufferPointer<UInt8>
    var times: [Int64]

    init(slots: Int, area: Int, wideArea: Int = 0) {
        self.area = area; self.wideArea = wideArea
        bytes = .allocate(capacity: slots * area)
        bytes.initialize(repeating: 0)
        wide = .allocate(capacity: slots * wideArea)
        wide.initialize(repeating: 0)
        times = [Int64](repeating: 0, count: slots)
    }
    deinit { bytes.deallocate(); wide.deallocate() }

    func withSlots<R>(_ j: Int, _ body: (UnsafeMutableBufferPointer<UInt8>, UnsafeMutableBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        try body(
            UnsafeMutableBufferPointer(rebasing: bytes[(j * area)..<((j + 1) * area)]),
            wideArea > 0 ? UnsafeMutableBufferPointer(rebasing: wide[(j * wideArea)..<((j + 1) * wideArea)]) : nil)
    }
    func slot(_ j: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[(j * area)..<((j + 1) * area)]) }
    func wideSlot(_ j: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: wide[(j * wideArea)..<((j + 1) * wideArea)]) }
    func copySlot(_ j: Int, from other: PictureBatch, slot s: Int) {
        (bytes.baseAddress! + j * area).update(from: other.bytes.baseAddress! + s * area, count: area)
        if wideArea > 0 { (wide.baseAddress! + j * wideArea).update(from: other.wide.baseAddress! + s * wideArea, count: wideArea) }
    }
}

/// One core's share of a batch: its own FFTW plans and spectra, and the shifts it measured.
final class CorrelationWorker: @unchecked Sendable {
    // @unchecked: iteration w of the batch's concurrentPerform is the only user of worker w, and
    // the extracting thread reads `results` only after the batch's group has been waited for.
    private let correlator: FFTWCorrelator
    private var previous: CorrelationSpectrum
    private var current: CorrelationSpectrum
    private(set) var results: [(dx: Double, dy: Double, peak: Double)] = []
    /// The blocks: their grid, plans, the previous picture's block spectra at the grid, and
    /// per pair each block's shift (wide samples) and peak.
    private let grid: BlockGrid?
    private let blockCorrelator: FFTWCorrelator?
    private var previousBlocks: [CorrelationSpectrum]
    private var currentBlocks: [CorrelationSpectrum]
    private let shifted: CorrelationSpectrum?
    private var scratch: [UInt8]
    /// Where each block's texture sits (`texturedRow`) in the previous and the current picture.
    private var previousRows: [Double], currentRows: [Double]
    /// The correlator's Hann window squared (each picture's block is windowed once, so a
    /// sample's part in the correlation goes with the window twice); across the columns also as
    /// integers (x 128: a row's sum stays under 128 x 2 x 255^2 x 62, about 1.0e9, inside Int32).
    private let windowSquared: [Double], columnWeights: [Int32]
    /// Wide samples per analysis sample.
    private let toWide: Double
    /// Per pair each block's shift, peak and row offset (wide samples; `BlockFlow.rowOffset`).
    private(set) var blockResults: [(dx: [Float], dy: [Float], peak: [Float], row: [Float])] = []

    init(size: Int, grid: BlockGrid? = nil, toWide: Double = 0) {
        correlator = FFTWCorrelator(size: size)
        previous = CorrelationSpectrum(size: size); current = CorrelationSpectrum(size: size)
        results.reserveCapacity(FrameMotionExtractor.batch)
        self.grid = grid; self.toWide = toWide
        let side = grid?.side ?? 0
        blockCorrelator = grid.map { FFTWCorrelator(size: $0.side) }
        previousBlocks = (0..<(grid?.count ?? 0)).map { _ in CorrelationSpectrum(size: side) }
        currentBlocks = (0..<(grid?.count ?? 0)).map { _ in CorrelationSpectrum(size: side) }
        shifted = grid.map { CorrelationSpectrum(size: $0.side) }
        scratch = [UInt8](repeating: 0, count: side * side)
        previousRows = [Double](repeating: 0, count: grid?.count ?? 0)
        currentRows = previousRows
        windowSquared = (0..<side).map { i in
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(side))
            return w * w
        }
        columnWeights = windowSquared.map { Int32(($0 * 128).rounded()) }
    }

    /// The shifts of pictures j - 1 -> j for j in `ends` (slots of `pictures`).
    func measure(_ pictures: PictureBatch, pairsEndingAt ends: Range<Int>) {
        results.removeAll(keepingCapacity: true)
        blockResults.removeAll(keepingCapacity: true)
        guard !ends.isEmpty else { return }
        correlator.spectrum(of: pictures.slot(ends.lowerBound - 1), into: previous)
        if grid != nil { blockSpectra(pictures.wideSlot(ends.lowerBound - 1), into: previousBlocks, rows: &previousRows) }
        for j in ends {
            correlator.spectrum(of: pictures.slot(j), into: current)
            let r = correlator.shift(from: previous, to: current)
            results.append(r)
            swap(&previous, &current)
            if grid != nil {
                blockResults.append(blocks(pictures.wideSlot(j), headStart: (r.dx * toWide, r.dy * toWide)))
                swap(&previousBlocks, &currentBlocks)
                swap(&previousRows, &currentRows)
            }
        }
    }

    /// Every block's spectrum at its grid place, and where its texture sits.
    private func blockSpectra(_ picture: UnsafeBufferPointer<UInt8>, into out: [CorrelationSpectrum], rows: inout [Double]) {
        guard let grid, let c = blockCorrelator else { return }
        for (i, o) in grid.origins.enumerated() {
            copyBlock(picture, x: o.x, y: o.y)
            scratch.withUnsafeBufferPointer { c.spectrum(of: $0, into: out[i]) }
            rows[i] = texturedRow()
        }
    }

    /// Where the texture of the block in `scratch` sits: wide samples below the window's
    /// centre (the periodic Hann window peaks at side / 2), the rows weighted by their
    /// gradient energy under the window squared, as a least-squares match weighs its samples.
    /// Why: a block's shift is the shift of the rows it matched on, and with a rolling shutter
    /// each row moved over its own interval; a block whose top is sky is timed by its lower
    /// half (measure-readout's camera: the top row of blocks 4-17 displayed px below their
    /// centres, the readout 5.5-6% low for it). 0 for a flat block.
    /// Each row's sum in wrapping integers: the compiler vectorises it (a Float sum it may not
    /// reorder); 4 against 11 us of CPU a 64-sample block, the same row to 0.001 sample.
    private func texturedRow() -> Double {
        let s = grid?.side ?? 0
        guard s >= 3 else { return 0 }
        return scratch.withUnsafeBufferPointer { block in
            columnWeights.withUnsafeBufferPointer { columns in
                let b = block.baseAddress!, c = columns.baseAddress!
                var total = 0.0, moment = 0.0
                for y in 1..<(s - 1) {
                    let row = b + y * s, up = row - s, down = row + s
                    var energy: Int32 = 0
                    for x in 1..<(s - 1) {
                        let gx = Int32(row[x &+ 1]) &- Int32(row[x &- 1]), gy = Int32(down[x]) &- Int32(up[x])
                        energy &+= c[x] &* (gx &* gx &+ gy &* gy)
                    }
                    let e = Double(energy) * windowSquared[y]
                    total += e
                    moment += e * Double(y - s / 2)
                }
                return total > 0 ? moment / total : 0
            }
        }
    }

    /// Each block of `picture` against the previous picture's: looked for where the global shift
    /// says it went (so a fast pan stays inside a block's reach), measured from there.
    /// The row offset: midway between the two blocks' textured rows, the second block's
    /// counted from where it was taken (a head start held at the picture's edge leaves an edge
    /// block's match on what stayed in view, inward of its centre).
    private func blocks(_ picture: UnsafeBufferPointer<UInt8>, headStart: (Double, Double)) -> (dx: [Float], dy: [Float], peak: [Float], row: [Float]) {
        guard let grid, let c = blockCorrelator, let shifted else { return ([], [], [], []) }
        blockSpectra(picture, into: currentBlocks, rows: &currentRows)
        var dx = [Float](repeating: 0, count: grid.count), dy = dx, peak = dx, row = dx
        let hx = Int(headStart.0.rounded()), hy = Int(headStart.1.rounded())
        for (i, o) in grid.origins.enumerated() {
            let x = min(max(0, o.x + hx), grid.width - grid.side), y = min(max(0, o.y + hy), grid.height - grid.side)
            let r: (dx: Double, dy: Double, peak: Double)
            var textured = currentRows[i]
            if x == o.x && y == o.y {
                r = c.shift(from: previousBlocks[i], to: currentBlocks[i])
            } else {
                copyBlock(picture, x: x, y: y)
                scratch.withUnsafeBufferPointer { c.spectrum(of: $0, into: shifted) }
                r = c.shift(from: previousBlocks[i], to: shifted)
                textured = texturedRow()
            }
            dx[i] = Float(Double(x - o.x) + r.dx); dy[i] = Float(Double(y - o.y) + r.dy); peak[i] = Float(r.peak)
            row[i] = Float((previousRows[i] + textured + Double(y - o.y)) / 2)
        }
        return (dx, dy, peak, row)
    }

    private func copyBlock(_ picture: UnsafeBufferPointer<UInt8>, x: Int, y: Int) {
        guard let grid else { return }
        let s = grid.side, w = grid.width
        scratch.withUnsafeMutableBufferPointer { out in
            for row in 0..<s {
                (out.baseAddress! + row * s).update(from: picture.baseAddress! + (y + row) * w + x, count: s)
            }
        }
    }
}
