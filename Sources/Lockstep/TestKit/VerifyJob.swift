import Compositor
import Foundation
import Media
import Verify

/// `lockstep verify`: decodes every frame of a movie once (keeping numbers, not pictures), reads
/// Lockstep's provenance where the frames carry it, measures the audio, and runs the checks.
public struct VerifyOptions: Sendable {
    public var movie: String
    public init(movie: String) { self.movie = movie }
}

public final class VerifyJob: Job {
    public let options: VerifyOptions
    private let cancellation = CancellationToken()

    /// Progress: frames decoded, of those the container lists.
    private let events: JobEvents
    public init(options: VerifyOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    public func cancel() { cancellation.cancel() }

    public func run() throws -> VerifyReport {
        Checks.run(try Self.scan(options.movie, cancellation: cancellation, progress: events.progress))
    }

    /// The numbers the checks judge, from one decoding pass.
    public static func scan(
        _ path: String, cancellation: CancellationToken = CancellationToken(), progress: ((Int64, Int64?) -> Void)? = nil
    ) throws -> Scan {
        let probe = try MovieProbe.probe(path)
        let reader = try MovieReader(path: path, audio: true, cancellation: cancellation)
        reader.userDataUUID = Provenance.uuid
        let decoder = JSONDecoder()
        var frames: [ScannedFrame] = []
        let decoded = Frame(), frame = Frame()
        // A 1x1 picture is measured on 2x2 (the Conformer's smallest place): "no room for the
        // picture" without the file's name was the answer.
        let size = Size(width: max(2, reader.video.displaySize.width), height: max(2, reader.video.displaySize.height))
        let conformer = try Conformer(
            place: size, picture: Rect(x: 0, y: 0, width: size.width, height: size.height),
            fill: .black, rotation: reader.video.rotation)
        // Luma on a 2x2 grid (a quarter of the pixels) is plenty for means and differences.
        var previous: [UInt8] = [], current: [UInt8] = []
        var audio = AudioMeter()
        let listed = reader.video.shownFrames ?? reader.video.indexedFrames
        while true {
            if cancellation.isCancelled { throw JobError.cancelled }
            let event = try reader.next(into: decoded) { audio.add($0) }
            if event == .end { break }
            guard case .video(let picture) = event else { continue }
            let source = picture.source
            try conformer.fit(decoded, into: frame)
            current.removeAll(keepingCapacity: true)
            var sum = 0.0, sq = 0.0
            frame.withImage { image in
                for y in stride(from: 0, to: image.height, by: 2) {
                    let row = image.y.row(y)
                    for x in stride(from: 0, to: image.width, by: 2) {
                        let l = row[x]; current.append(l)
                        let d = Double(l); sum += d; sq += d * d
                    }
                }
            }
            let n = Double(current.count)
            let mean = sum / n
            var difference: Double?
            if previous.count == current.count {
                var total = 0
                for i in current.indices { total += abs(Int(current[i]) - Int(previous[i])) }
                difference = Double(total) / n
            }
            swap(&previous, &current)
            let provenance = picture.userData.flatMap { Provenance.parse($0, decoder: decoder) }
            frames.append(
                ScannedFrame(
                    pts: source.pts, meanLuma: mean, lumaDeviation: max(0, sq / n - mean * mean).squareRoot(),
                    difference: difference, provenance: provenance))
            progress?(Int64(frames.count), listed)
        }
        let v = probe.streams.first { $0.type == "video" }
        var scannedAudio: ScannedAudio?
        if let a = probe.streams.first(where: { $0.type == "audio" }), reader.audio != nil {
            let start = a.startTime ?? 0
            scannedAudio = ScannedAudio(
                start: start, end: start + (a.duration ?? 0), tailLevel: audio.tailLevel, overallLevel: audio.overallLevel,
                endResolution: Self.endResolution(a), priming: Self.unmarkedPriming(a, container: probe.container))
        }
        return Scan(path: path, frames: frames, videoDuration: v?.duration, audio: scannedAudio)
    }

    /// One codec frame where the stream's length is a whole number of them (the container did
    /// not trim the last one), else 0 (trimmed to the sample).
    static func endResolution(_ a: ProbeReport.Stream) -> Double {
        guard let n = a.frameSize, n > 1, let rate = a.sampleRate, rate > 0, let d = a.duration, d.isFinite, d > 0, d < 1e7 else { return 0 }
        // Durations in a millisecond time base (Matroska) are rounded: a whole number of frames
        // to within a millisecond counts.
        let samples = (d * Double(rate)).rounded()
        let r = samples.truncatingRemainder(dividingBy: Double(n))
        return min(r, Double(n) - r) <= (Double(rate) / 1000).rounded(.up) ? Double(n) / Double(rate) : 0
    }

    /// AAC's encoder priming (one frame, as FFmpeg's and most encoders write it) where the
    /// container cannot mark it discarded: Matroska without a CodecDelay.
    static func unmarkedPriming(_ a: ProbeReport.Stream, container: String) -> Double {
        guard container.contains("matroska"), a.codec == "aac", a.initialPadding == nil,
            let n = a.frameSize, n > 0, let rate = a.sampleRate, rate > 0
        else { return 0 }
        return Double(n) / Double(rate)
    }

    /// RMS of the whole track and of its last 100 ms, mixed to mono.
    struct AudioMeter {
        private var total = 0.0, count = 0
        private var tail = [Float](repeating: 0, count: 4800)
        private var tailPosition = 0, tailFilled = 0

        mutating func add(_ s: AudioSamples) {
            s.withSamples { left, right in
                for i in 0..<s.count {
                    let m = (left[i] + right[i]) / 2
                    total += Double(m * m); count += 1
                    tail[tailPosition] = m
                    tailPosition = (tailPosition + 1) % tail.count
                    tailFilled = min(tail.count, tailFilled + 1)
                }
            }
        }
        static func dB(_ meanSquare: Double) -> Double { meanSquare > 0 ? 10 * log10(meanSquare) : -200 }
        var overallLevel: Double { count > 0 ? Self.dB(total / Double(count)) : -200 }
        var tailLevel: Double {
            guard tailFilled > 0 else { return -200 }
            return Self.dB(tail.prefix(tailFilled).reduce(0.0) { $0 + Double($1 * $1) } / Double(tailFilled))
        }
    }
}
