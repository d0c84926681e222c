import Compositor
import Foundation
import Media
import SyncCode

/// Everything `lockstep testsrc` needs to know.
public struct TestSourceOptions: Sendable {
    public var output: String
    public var duration = 10.0
    public var frameRate = Rational(30, 1)
    public var size = Size(width: 1280, height: 720)
    /// nil: no audio stream.
    public var audioRate: Int? = 48_000
    public var channels = 2
    public var codec = SourceCodec.h264
    public init(output: String) { self.output = output }

    static let containers = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska"]

    /// Frames: duration x fps, rounded to the nearest frame.
    public var frames: Int64 { Int64((duration * frameRate.seconds).rounded()) }

    /// Each rule as the sentence the user sees.
    public func check() throws {
        try OutputPath.refuseStandardOutput(output)
        guard !output.hasSuffix("/") else { throw OutputPathError.endsInSlash(output) }
        let ext = (output as NSString).pathExtension.lowercased()
        guard let container = Self.containers[ext] else { throw OutputPathError.notAMovieName(output) }
        guard codec.containers.contains(container) else { throw TestKitError.codecNeedsMOVOrMKV(output: output, codec: codec.rawValue) }
        // Counted in Double first: `frames` converts to Int64, which traps past Int64.max (--duration 1e300).
        let count = (duration * frameRate.seconds).rounded()
        guard duration.isFinite, duration > 0, count >= 1 else { throw TestKitError.noFrame }
        guard frameRate.num > 0, frameRate.den > 0, frameRate.seconds <= 240 else { throw TestKitError.rateOutOfRange }
        try CompositeOptions.checkFraction(frameRate)
        guard count < Double(CodeWord.modulus) else { throw TestKitError.tooLong(limit: CodeWord.modulus) }
        guard size.width >= 160, size.height >= 90, size.width % 2 == 0, size.height % 2 == 0, size.width <= 8192, size.height <= 8192 else {
            throw TestKitError.sizeOutOfRange
        }
        if let r = audioRate { guard (8_000...192_000).contains(r) else { throw TestKitError.audioRateOutOfRange } }
        guard (1...8).contains(channels) else { throw TestKitError.channelsOutOfRange }
        // The folder, the name's length: OutputPath's rules, asked of the name as a .mov (a
        // container it knows, the same length) and told of the real name.
        let asMov = (output as NSString).deletingPathExtension + ".mov"
        do { try OutputPath.check(asMov, inputs: []) } catch let e as OutputPathError { throw e.naming(asMov, as: output) }
    }
}

/// Writes the identity-coded movie: frame k painted with `TestPicture` (its `FrameCode`) at pts
/// k/fps; the `AudioCode` rendered sample by sample, the audio cut to round(frames / fps x rate)
/// samples. Written to a temporary beside the output and renamed when complete.
public final class TestSourceJob: Job {
    public struct Result: Sendable { public var frames: Int64; public var audioSamples: Int64 }
    public let options: TestSourceOptions
    private let cancellation = CancellationToken()

    /// The movie is written in one pass with nothing to tell: `events` is not used.
    public init(options: TestSourceOptions, events: JobEvents = JobEvents()) { self.options = options }

    public func cancel() { cancellation.cancel() }

    public func run() throws -> Result {
        let o = options
        try o.check()
        let container = TestSourceOptions.containers[(o.output as NSString).pathExtension.lowercased()]!
        return try OutputPath.writing(to: o.output) { file in
            try Self.write(o, container: container, to: file.path, cancellation: cancellation)
        }
    }

    static func write(_ o: TestSourceOptions, container: String, to path: String, cancellation: CancellationToken) throws -> Result {
        let writer = try SourceMovieWriter(
            path: path, container: container, codec: o.codec, size: o.size, frameRate: o.frameRate,
            audioRate: o.audioRate, channels: o.channels)
        do {
            let frame = try Frame(width: o.size.width, height: o.size.height)
            let code = AudioCode(frameRate: o.frameRate)
            var samples = [Float](repeating: 0, count: 1)
            var written: Int64 = 0
            let fps = o.frameRate
            for k in 0..<o.frames {
                if cancellation.isCancelled { throw JobError.cancelled }
                try frame.makeWritable()
                frame.withImage { TestPicture.paint(frame: Int(k), frameRate: fps, into: $0) }
                try writer.writeVideo(frame, index: k)
                guard let rate = o.audioRate else { continue }
                // The audio up to the end of frame k, to the nearest sample: exact rationals.
                let r = Int64(rate)
                let end = ((k + 1) * r * fps.den * 2 + fps.num) / (2 * fps.num)
                let n = Int(end - written)
                if n > samples.count { samples = [Float](repeating: 0, count: n) }
                samples.withUnsafeMutableBufferPointer { b in
                    let part = UnsafeMutableBufferPointer(rebasing: b[0..<n])
                    code.render(first: written, rate: rate, into: part)
                }
                try samples.withUnsafeBufferPointer { try writer.writeAudio(UnsafeBufferPointer(rebasing: $0[0..<n])) }
                written = end
            }
            try writer.finish()
            return Result(frames: o.frames, audioSamples: written)
        } catch {
            try? writer.close()
            throw error
        }
    }
}
