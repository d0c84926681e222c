import Foundation
import Media

/// `--loudness`: the gain that brings the output's sound to a target integrated loudness (EBU
/// R128), found before the job starts. The job writes audio as the video goes, so it cannot
/// measure its own mix first; instead this pass reads only the inputs' sound (no picture is
/// decoded), mixes it as the writer will (the same 48 kHz stereo, per-input gains, each input's
/// sample 0 at its video's start, up to the end of the shortest) and measures that. The job
/// then applies one gain to every input, and measures what it wrote (`WriterThread`), so the
/// summary says what came out, limiter included.
enum LoudnessPass {
    struct Measurement: Equatable, Sendable {
        /// The unnormalised mix, LUFS (-infinity: silence).
        var mixLUFS: Double
        /// Linear gain to the target (1 for silence: nothing to bring up).
        var gain: Double
    }

    /// `inputs` with their gains (0: not in the mix).
    static func measure(_ inputs: [(path: String, gain: Float)], target: Double, cancellation: CancellationToken) throws -> Measurement {
        let meter = LoudnessMeter()
        var sources: [Source] = try inputs.filter { $0.gain > 0 }.map { try Source(path: $0.path, gain: $0.gain, cancellation: cancellation) }
        sources.removeAll { $0.reader.audio == nil }
        guard !sources.isEmpty else { return Measurement(mixLUFS: -.infinity, gain: 1) }
        let chunk = 48_000
        var left = [Float](repeating: 0, count: chunk), right = left
        var position: Int64 = 0
        let frame = Frame()
        while true {
            let end = position + Int64(chunk)
            for s in sources { try s.fill(until: end, frame: frame) }
            // The output ends with its shortest input.
            let until = min(end, sources.map(\.availableEnd).min()!)
            guard until > position else { break }
            let n = Int(until - position)
            for i in 0..<n { left[i] = 0; right[i] = 0 }
            for s in sources { s.add(from: position, count: n, left: &left, right: &right) }
            try left.withUnsafeBufferPointer { l in
                try right.withUnsafeBufferPointer { r in try meter.add(left: l.baseAddress!, right: r.baseAddress!, count: n) }
            }
            position = until
            if sources.contains(where: { $0.ended && $0.availableEnd <= position }) { break }
        }
        let lufs = try meter.integrated()
        return Measurement(mixLUFS: lufs, gain: lufs.isFinite ? pow(10, (target - lufs) / 20) : 1)
    }

    /// One input's sound on the output's clock (48 kHz from its video's start), buffered.
    final class Source {
        let reader: MovieReader
        let gain: Float
        private let origin: Int64
        private var left: [Float] = [], right: [Float] = []
        /// Output position of left[0].
        private var base: Int64?
        private(set) var ended = false

        init(path: String, gain: Float, cancellation: CancellationToken) throws {
            reader = try MovieReader(path: path, audio: true, cancellation: cancellation)
            reader.decodesVideo = false
            self.gain = gain
            let start = reader.video.startTime.map { Rational.rescale($0.value, from: $0.timeBase, to: Rational(1, 48_000)) } ?? 0
            origin = start
        }

        var availableEnd: Int64 { ended && base == nil ? .min : (base ?? .max) + Int64(left.count) }

        func fill(until end: Int64, frame: Frame) throws {
            while !ended && (base == nil || base! + Int64(left.count) < end) {
                switch try reader.next(into: frame, audioSink: append) {
                case .end: ended = true
                case .audio, .video: continue
                }
            }
            if ended && base == nil { base = 0 }
        }

        private func append(_ s: AudioSamples) {
            let at = s.start - origin
            if base == nil { base = at }
            let gap = Int(at - (base! + Int64(left.count)))
            if gap > 0 { left.append(contentsOf: repeatElement(0, count: gap)); right.append(contentsOf: repeatElement(0, count: gap)) }
            let skip = max(0, -gap)
            guard skip < s.count else { return }
            s.withSamples { l, r in
                left.append(contentsOf: l[skip...]); right.append(contentsOf: r[skip...])
            }
        }

        /// Adds gain times output samples [from, from + count), then forgets what is before their end.
        func add(from: Int64, count: Int, left l: inout [Float], right r: inout [Float]) {
            guard let base else { return }
            for i in 0..<count {
                let k = Int(from - base) + i
                if k >= 0 && k < left.count { l[i] += gain * left[k]; r[i] += gain * right[k] }
            }
            let consumed = min(left.count, max(0, Int(from - base) + count))
            if consumed > 1 << 16 {
                left.removeFirst(consumed); right.removeFirst(consumed)
                self.base = base + Int64(consumed)
            }
        }
    }
}
