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
/// another wrote), each worker with its own FFTW plans.
public enum FrameMotionExtractor {
    /// Frames per batch: enough to keep every core busy, small enough to bound memory
    /// (about 4 MB of analysis squares at 256).
    static let batch = 64

    public static func extract(path: String, workers: Int? = nil) throws -> FrameMotionSeries {
        let reader = try LumaReader(path: path)
        let n = reader.side, area = n * n, k = Double(reader.scale)
        let workerCount = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
        let pool = (0..<workerCount).map { _ in CorrelationWorker(size: n) }
        // Slot 0: the previous batch's last picture; slots 1...batch: this batch's.
        var pictures = [UInt8](repeating: 0, count: (batch + 1) * area)
        var batchTimes = [Int64](repeating: 0, count: batch)
        var times: [Int64] = []
        var shifts: [VideoShift] = []
        var peaks: [Double] = []
        var origin: Int64?

        while true {
            var count = 0
            try pictures.withUnsafeMutableBufferPointer { all in
                while count < batch {
                    let slot = UnsafeMutableBufferPointer(rebasing: all[((count + 1) * area)..<((count + 2) * area)])
                    guard let t = try reader.next(into: slot) else { break }
                    batchTimes[count] = t
                    count += 1
                }
            }
            if count == 0 { break }
            // Pairs end at slots first...count: slot 0 is a picture only after the first batch.
            let first = times.isEmpty ? 2 : 1
            let pairs = max(0, count - first + 1)
            let runs = min(workerCount, pairs)
            if runs > 0 {
                // Shares the buffer (no copy) and is gone before the next batch writes into it.
                let snapshot = pictures
                DispatchQueue.concurrentPerform(iterations: runs) { w in
                    let lo = first + pairs * w / runs, hi = first + pairs * (w + 1) / runs
                    pool[w].measure(snapshot, pictureSize: area, pairsEndingAt: lo..<hi)
                }
            }
            if origin == nil { origin = batchTimes[0] }
            var previous = times.last
            var results = pool.prefix(runs).flatMap(\.results).makeIterator()
            for j in 0..<count {
                let t = batchTimes[j] - origin!
                if j + 1 >= first, let from = previous, let r = results.next() {
                    shifts.append(VideoShift(from: from, to: t, dx: r.dx * k, dy: r.dy * k))
                    peaks.append(r.peak)
                }
                previous = t
                times.append(t)
            }
            // The last picture becomes the next batch's slot 0.
            pictures.withUnsafeMutableBufferPointer { all in
                all.baseAddress!.update(from: all.baseAddress! + count * area, count: area)
            }
        }
        return FrameMotionSeries(displaySize: reader.displaySize, frameTimes: times, shifts: shifts, peaks: peaks)
    }
}

/// One core's share of a batch: its own FFTW plans and spectra, and the shifts it measured.
final class CorrelationWorker: @unchecked Sendable {
    // @unchecked: iteration w of the batch's concurrentPerform is the only user of worker w, and
    // the extracting thread reads `results` only after concurrentPerform has returned.
    private let correlator: FFTWCorrelator
    private var previous: CorrelationSpectrum
    private var current: CorrelationSpectrum
    private(set) var results: [(dx: Double, dy: Double, peak: Double)] = []

    init(size: Int) {
        correlator = FFTWCorrelator(size: size)
        previous = CorrelationSpectrum(size: size); current = CorrelationSpectrum(size: size)
        results.reserveCapacity(FrameMotionExtractor.batch)
    }

    /// The shifts of pictures (slots of `pictureSize` bytes) j - 1 -> j for j in `ends`.
    func measure(_ pictures: [UInt8], pictureSize: Int, pairsEndingAt ends: Range<Int>) {
        results.removeAll(keepingCapacity: true)
        guard !ends.isEmpty else { return }
        pictures.withUnsafeBufferPointer { all in
            func slot(_ j: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: all[(j * pictureSize)..<((j + 1) * pictureSize)]) }
            correlator.spectrum(of: slot(ends.lowerBound - 1), into: previous)
            for j in ends {
                correlator.spectrum(of: slot(j), into: current)
                results.append(correlator.shift(from: previous, to: current))
                swap(&previous, &current)
            }
        }
    }
}
