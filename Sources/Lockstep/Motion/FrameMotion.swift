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

    public init(displaySize: Size, frameTimes: [Int64], shifts: [VideoShift], peaks: [Double] = []) {
        self.displaySize = displaySize; self.frameTimes = frameTimes; self.shifts = shifts; self.peaks = peaks
    }
}

/// Decodes a movie once and measures the global shift between consecutive frames by phase
/// correlation on downscaled luma.
///
/// How it is fast: `LumaReader` decodes with FFmpeg's frame threads and has libswscale write
/// only the small analysis square; frames are then taken in batches, and each batch's pairs are
/// cut into one contiguous run per core, measured in parallel (a run computes the spectrum of
/// the picture before it once more: one extra FFT per run, and no worker ever reads what
/// another wrote), each worker with its own FFTW plans. Two batch buffers take turns: the
/// workers measure one batch while this thread decodes the next into the other, so the
/// decoder's threads never wait for the correlations.
public enum FrameMotionExtractor {
    /// Frames per batch: enough to keep every core busy, small enough to bound memory
    /// (about 4 MB of analysis squares at 256, twice).
    static let batch = 64

    /// `overlap`: false waits for each batch's correlations before decoding the next (the way it
    /// was before the two buffers; timed against the overlap once, in the README's calibrate
    /// speed paragraph). The results are the same either way (FrameMotionTests).
    /// `cancellation`: checked before each picture; once raised, the batch in flight is waited
    /// for and `JobError.cancelled` thrown (a stop signal under `lockstep calibrate`).
    public static func extract(path: String, workers: Int? = nil, overlap: Bool = true,
                               cancellation: CancellationToken = CancellationToken()) throws -> FrameMotionSeries {
        let reader = try LumaReader(path: path, cancellation: cancellation)
        let n = reader.side, area = n * n, k = Double(reader.scale)
        let workerCount = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
        let pool = (0..<workerCount).map { _ in CorrelationWorker(size: n) }
        let buffers = [PictureBatch(slots: batch + 1, area: area), PictureBatch(slots: batch + 1, area: area)]
        let group = DispatchGroup()
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
            for p in pending {
                let r = results.next()!
                shifts.append(VideoShift(from: p.from, to: p.to, dx: r.dx * k, dy: r.dy * k))
                peaks.append(r.peak)
            }
            pendingRuns = 0
        }

        while true {
            let pictures = buffers[turn]
            // Slot 0 holds the previous batch's last picture; slots 1...batch this batch's.
            var count = 0
            while count < batch {
                if cancellation.isCancelled { group.wait(); throw JobError.cancelled }
                guard let t = try pictures.withSlot(count + 1, { try reader.next(into: $0) }) else { break }
                pictures.times[count] = t
                count += 1
            }
            // The other buffer's batch is measured by now or soon: file it before this one starts.
            collect()
            if count == 0 { break }
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
                DispatchQueue.global().async(group: group) {
                    DispatchQueue.concurrentPerform(iterations: runs) { w in
                        let lo = first + pairs * w / runs, hi = first + pairs * (w + 1) / runs
                        pool[w].measure(pictures, pairsEndingAt: lo..<hi)
                    }
                }
                if !overlap { collect() }
            }
            // This batch's last picture becomes slot 0 of the next batch (read while the workers read it).
            buffers[1 - turn].copySlot(0, from: pictures, slot: count)
            turn = 1 - turn
        }
        collect()
        return FrameMotionSeries(displaySize: reader.displaySize, frameTimes: times, shifts: shifts, peaks: peaks)
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
    var times: [Int64]

    init(slots: Int, area: Int) {
        self.area = area
        bytes = .allocate(capacity: slots * area)
        bytes.initialize(repeating: 0)
        times = [Int64](repeating: 0, count: slots)
    }
    deinit { bytes.deallocate() }

    func withSlot<R>(_ j: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(rebasing: bytes[(j * area)..<((j + 1) * area)]))
    }
    func slot(_ j: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[(j * area)..<((j + 1) * area)]) }
    func copySlot(_ j: Int, from other: PictureBatch, slot s: Int) {
        (bytes.baseAddress! + j * area).update(from: other.bytes.baseAddress! + s * area, count: area)
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

    init(size: Int) {
        correlator = FFTWCorrelator(size: size)
        previous = CorrelationSpectrum(size: size); current = CorrelationSpectrum(size: size)
        results.reserveCapacity(FrameMotionExtractor.batch)
    }

    /// The shifts of pictures j - 1 -> j for j in `ends` (slots of `pictures`).
    func measure(_ pictures: PictureBatch, pairsEndingAt ends: Range<Int>) {
        results.removeAll(keepingCapacity: true)
        guard !ends.isEmpty else { return }
        correlator.spectrum(of: pictures.slot(ends.lowerBound - 1), into: previous)
        for j in ends {
            correlator.spectrum(of: pictures.slot(j), into: current)
            results.append(correlator.shift(from: previous, to: current))
            swap(&previous, &current)
        }
    }
}
