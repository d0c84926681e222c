import ArgumentParser
import Foundation
import Lockstep

extension ReverseAudioMode: ExpressibleByArgument {}

struct ReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Play a movie backwards (or as a boomerang) in bounded memory.",
        discussion: """
            The movie's timeline played backwards: output frame k at k/fps shows the frame on screen at \
            that point of the reversed timeline, so dropped frames, a variable rate and an edit list keep \
            their times and every sound stays on its picture (--keep-frames: every frame once at the output's \
            rate instead). --from/--to cut the movie first, then reverse the cut; --frames A:B is the same cut \
            in frames (the source's frames A to B-1 at the output's rate, as --from A/fps --to B/fps). The video is read backwards \
            GOP by GOP into a pool of pictures; a GOP longer than the pool is decoded again from its keyframe \
            for each part, so memory does not grow with the length of the movie or of its GOPs. Each output \
            frame carries its source frame and when it is on screen as provenance (`lockstep verify` checks \
            the order and the times).
            """)

    @OptionGroup var encoding: EncodeArguments
    var output: String { encoding.output }

    @OptionGroup(title: "Timeline and cuts") var timeline: TimelineArguments

    @Option(
        help: ArgumentHelp(
            "Reverse only the source's frames A (included) to B (excluded), counted at the output's rate on the source's timeline: the cut --from A/fps --to B/fps makes.",
            valueName: "A:B"))
    var frames: String?

    @OptionGroup var layout: GOPAndAudioCodecArguments

    @Flag(help: "Forward, then backward: the turning frame shown once.")
    var boomerang = false

    @Option(parsing: .unconditional, help: "How many times to play it.")
    var loops: Int = 1

    @Option(help: ArgumentHelp("reverse: the audio reversed with the pictures; keep: the original audio, cut to the video; none.", valueName: "reverse|keep|none"))
    var audio: ReverseAudioMode = .reverse

    @Option(name: .customLong("pool-frames"), parsing: .unconditional, help: ArgumentHelp("Decoded pictures held at most (default: 64 MiB of them, at least 4).", visibility: .hidden))
    var poolFrames: Int?

    @Flag(help: "No progress on stderr.")
    var quiet = false

    @Argument(help: ArgumentHelp("Input movie.", valueName: "IN"))
    var input: String

    var options: ReverseOptions {
        var o = ReverseOptions(input: input, output: output)
        o.boomerang = boomerang
        o.loops = loops
        o.audio = audio
        o.poolFrames = poolFrames
        o.encode = encoding.settings
        layout.apply(to: &o.encode)
        o.size = encoding.out.size
        o.frameRate = encoding.out.fps
        o.signal = encoding.out.signal
        o.toneCurve = encoding.out.tone
        o.deinterlace = encoding.out.deinterlace ?? .frame
        o.sync = timeline.keepFrames ? .index : .time
        o.cut = timeline.cut
        o.frames = frames.flatMap { try? FrameRange(parsing: $0) }
        return o
    }

    func validate() throws {
        if let frames { try asUsage { _ = try FrameRange(parsing: frames) } }
        try encoding.validate(inputs: [input]) { try options.check() }
    }

    func run() throws {
        let result = try runOutputJob(ReverseJob.self, options, quiet: quiet)
        let seconds = Double(result.audioSamples ?? 0) / 48_000
        let audioNote = result.audioSamples != nil ? String(format: ", audio %.3f s", seconds) : ", no audio"
        print(
            "wrote \(output): \(result.frames) frames from \(result.sourceFrames), \(result.canvas) at \(result.frameRate) fps\(audioNote); "
                + "pool \(result.poolFrames) pictures, longest GOP \(result.longestGOP), \(result.picturesDecoded) pictures decoded, \(result.seeks) seeks")
    }
}
