import ArgumentParser
import Foundation
import Lockstep

extension SourceCodec: ExpressibleByArgument {}

struct TestSourceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "testsrc",
        abstract: "Write an identity-coded test movie for timestamp-sync tests (read back with `verify --coded`).",
        discussion: """
            Every frame carries its number in a row of 40 large black and white cells near the top (readable \
            after scaling to a quarter of the width, 4:2:0, x264 CRF 35, range mix-ups, letterboxing) and a \
            marker that sweeps the bottom once a second. The audio carries a code locked to the video: every \
            half second or less, at the exact time of a frame, a 20 ms chirp and that frame's number as 2/3 kHz \
            tones. Frame k has pts k/fps; the audio is cut to the sample. With --codec ffv1 the same command \
            writes the same bytes.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v, .mov or .mkv; ffv1 and prores need .mov or .mkv).", valueName: "OUT"))
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Length in seconds.", valueName: "S"))
    var duration: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp("Frame rate.", valueName: "N[/D]"))
    var fps: Rational = Rational(30, 1)

    @Option(help: ArgumentHelp("Picture size, even numbers.", valueName: "WxH"))
    var size: Size = Size(width: 1280, height: 720)

    @Option(name: .customLong("audio-rate"), parsing: .unconditional, help: ArgumentHelp("Audio sample rate; 0 for no audio.", valueName: "HZ"))
    var audioRate: Int = 48_000

    @Option(parsing: .unconditional, help: ArgumentHelp("Audio channels (the same code in each).", valueName: "N"))
    var channels: Int = 2

    @Option(help: ArgumentHelp("Video codec: h264 (with AAC audio), ffv1 or prores (with 16-bit PCM).", valueName: "h264|ffv1|prores"))
    var codec: SourceCodec = .h264

    var options: TestSourceOptions {
        var o = TestSourceOptions(output: output)
        o.duration = duration; o.frameRate = fps; o.size = size
        o.audioRate = audioRate == 0 ? nil : audioRate
        o.channels = channels; o.codec = codec
        return o
    }

    func validate() throws {
        try asUsage { try options.check() }
    }

    func run() throws {
        let result = try runJob(TestSourceJob.self, options)
        let seconds = (fps.inverse * result.frames).seconds
        let audio = options.audioRate.map { ", audio \(result.audioSamples) samples at \($0) Hz" } ?? ", no audio"
        print("wrote \(output): \(result.frames) frames, \(size) at \(fps) fps, \(String(format: "%.3f", seconds)) s\(audio)")
    }
}
