import Compositor
import Foundation
import Media
import SyncCode
import Verify

/// `lockstep verify --coded`: decodes a movie once, reads the frame code from every picture and
/// the audio code from the sound (mixed to mono), and hands the numbers to `CodedAnalysis`.
public struct CodedVerifyOptions: Sendable {
    public var movie: String
    /// Whose identity to read, in a composite's provenance: that input's place; nil = the
    /// whole picture (a movie straight from `lockstep testsrc`).
    public var input: Int?
    public init(movie: String, input: Int? = nil) { self.movie = movie; self.input = input }
}

public final class CodedVerifyJob: Job {
    public let options: CodedVerifyOptions
    private let cancellation = CancellationToken()

    /// One pass with nothing to tell: `events` is not used.
    public init(options: CodedVerifyOptions, events: JobEvents = JobEvents()) { self.options = options }

    public func cancel() { cancellation.cancel() }

    public func run() throws -> CodedReport {
        try CodedAnalysis.run(try Self.scan(options.movie, input: options.input, cancellation: cancellation))
    }

    /// The report as JUnit XML and as HTML, each where asked, through `OutputPath` (its errors
    /// name the file).
    public static func write(_ report: CodedReport, junit: String?, html: String?) throws {
        if let junit { try OutputPath.write(Data(report.junit().utf8), to: junit) }
        if let html { try OutputPath.write(Data(report.html().utf8), to: html) }
    }

    public static func scan(_ path: String, input: Int? = nil, cancellation: CancellationToken = CancellationToken()) throws -> CodedScan {
        let reader = try MovieReader(path: path, audio: true, cancellation: cancellation, frameThreads: true)
        reader.userDataUUID = Provenance.uuid
        let size = Size(width: max(2, reader.video.displaySize.width), height: max(2, reader.video.displaySize.height))
        let conformer = try Conformer(
            place: size, picture: Rect(x: 0, y: 0, width: size.width, height: size.height),
            fill: .black, rotation: reader.video.rotation)
        let decoded = Frame(), frame = Frame()
        var frames: [(time: Double, code: Int?)] = []
        var audio = AudioCodeReader(rate: AudioFormat.sampleRate, fft: FFTWComplexFFT.make)
        var mono = [Float](repeating: 0, count: 4096)
        var region = Rect(x: 0, y: 0, width: size.width, height: size.height)
        var regionKnown = input == nil
        let decoder = JSONDecoder()
        while true {
            if cancellation.isCancelled { throw JobError.cancelled }
            let event = try reader.next(into: decoded) { samples in
                if mono.count < samples.count { mono = [Float](repeating: 0, count: samples.count) }
                samples.withSamples { l, r in for i in 0..<samples.count { mono[i] = (l[i] + r[i]) / 2 } }
                mono.withUnsafeBufferPointer { audio.add(UnsafeBufferPointer(rebasing: $0[0..<samples.count]), start: samples.start) }
            }
            if event == .end { break }
            guard case .video(let picture) = event else { continue }
            if !regionKnown, let k = input {
                // Input K of a Lockstep composite: its place from the provenance header.
                regionKnown = true
                region = try place(of: k, in: size, provenance: picture.userData.flatMap { Provenance.parse($0, decoder: decoder) }, path: path)
            }
            try conformer.fit(decoded, into: frame)
            let code = frame.withImage { FrameCode.find($0.y, in: region) }
            frames.append((picture.source.pts.seconds, code))
        }
        return CodedScan(path: path, frames: frames, hasAudio: reader.audio != nil, audioHits: audio.finish())
    }

    /// Where input `k` of a composite is: its quad cell, or the whole canvas for the blends that
    /// lay every input over all of it (its code is readable there only where nothing covers it).
    static func place(of k: Int, in size: Size, provenance: Provenance?, path: String) throws -> Rect {
        guard let p = provenance, let blendName = p.blend, let blend = BlendMode(rawValue: blendName), let inputs = p.inputs else {
            throw TestKitError.notAComposite(path: path)
        }
        guard (0..<inputs.count).contains(k) else {
            throw TestKitError.noSuchInput(path: path, input: k, of: inputs.count)
        }
        guard size.width % 2 == 0, size.height % 2 == 0 else { return Rect(x: 0, y: 0, width: size.width, height: size.height) }
        let layout = Layout(blend: blend, canvas: size, inputs: Array(repeating: size, count: inputs.count))
        return layout.places[k]
    }
}
