import Foundation

/// Clips with a flash and a beep at known times, made by the ffmpeg CLI, and measured back by the
/// ffmpeg CLI (its decode; the onsets are plain arithmetic here), never by Lockstep's code.
///
/// A clip: a dark grey picture (Y about 48) that turns white for `flash` seconds from each time
/// in `at` (drawbox's `enable` over the frame's own time t: the first frame at or after the time
/// is the first white one), and a 100 Hz hum at 0.02 with a 0.5 sine of `tone` Hz over the same
/// spans (aevalsrc over each sample's own t), AAC. Where a flash lands is what ffprobe says of
/// that frame, not the time asked for: the expected values are measured on the clip.
enum FlashBeep {
    struct Clip {
        var path: String
        /// Flash onsets (ffprobe's frame times) and beep onsets (the decoded audio), seconds.
        var flashes: [Double]
        var beeps: [Double]
        var duration: Double
    }

    /// `time`: an ffmpeg expression for the scene's time at the clip's own time t (default "t":
    /// a camera placed or running off the reference is "OFFSET+t/(1+DRIFT)").
    static func make(
        _ path: String, rate: String, seconds: Double, at times: [Double], tone: Double, flash: Double = 0.1,
        size: String = "160x120", time: String = "t", videoCodec: [String] = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15"]
    ) throws -> Clip {
        let on = times.map { "between(\(time),\(fmt($0)),\(fmt($0 + flash)))" }.joined(separator: "+")
        let beep = times.map { "between(\(time),\(fmt($0)),\(fmt($0 + flash)))" }.joined(separator: "+")
        _ = try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y",
                "-f", "lavfi", "-i",
                "color=c=0x303030:s=\(size):r=\(rate):d=\(fmt(seconds)),format=yuv420p,"
                    + "drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='\(on)'",
                "-f", "lavfi", "-i", "aevalsrc='0.02*sin(2*PI*100*t)+0.5*sin(2*PI*\(fmt(tone))*(\(time)))*gt(\(beep),0)':s=48000:d=\(fmt(seconds))",
                "-shortest"
            ] + videoCodec + ["-c:a", "aac", "-b:a", "128k", path])
        let m = try measure(URL(fileURLWithPath: path))
        return Clip(path: path, flashes: m.flashes[0], beeps: m.beeps[0], duration: m.streams.first { $0.codecType == "video" }?.duration ?? 0)
    }

    /// What `measure` finds in a movie: ffprobe's streams, and the flashes and beeps asked for.
    struct Measured {
        var streams: [ProbeStream]
        var flashes: [[Double]]
        var beeps: [[Double]]
    }

    /// `flashes` in each of `regions` and `beeps` of each of `tones` (nil: any) of one movie, with
    /// ffprobe's streams: two outside runs, not four (ffprobe for the streams and the frame times,
    /// which decodes the file once; the ffmpeg CLI for the pictures and the sound at once).
    static func measure(_ url: URL, regions: [(x: Int, y: Int, w: Int, h: Int)?] = [nil], tones: [Double?] = [nil]) throws -> Measured {
        let (streams, pts) = try Probe.streamsAndVideoPTS(url)
        let (video, sound) = try decode(url)
        return Measured(streams: streams, flashes: flashes(video, pts: pts, regions: regions), beeps: tones.map { beeps(in: sound, tone: $0) })
    }

    /// The pictures and the sound from one run of the ffmpeg CLI (`LumaVideo.decodeWithSound`).
    static func decode(_ url: URL) throws -> (video: LumaVideo, sound: [Float]) { try LumaVideo.decodeWithSound(url) }

    static func fmt(_ x: Double) -> String { String(format: "%.9g", x) }

    /// Onsets of white in a region (pixels of the decoded picture; nil: all): times (ffprobe) of
    /// the frames whose region's mean luma is above 128 after one at or below it.
    static func flashes(_ url: URL, region: (x: Int, y: Int, w: Int, h: Int)? = nil) throws -> [Double] {
        try flashes(url, regions: [region])[0]
    }

    /// `flashes` in each of `regions`, from one decode of the movie (a quad's cells).
    static func flashes(_ url: URL, regions: [(x: Int, y: Int, w: Int, h: Int)?]) throws -> [[Double]] {
        flashes(try LumaVideo.decode(url), pts: try VideoTimestamps.pts(url), regions: regions)
    }

    /// `flashes` in decoded pictures whose ffprobe times are `pts`.
    static func flashes(_ video: LumaVideo, pts: [Double], regions: [(x: Int, y: Int, w: Int, h: Int)?]) -> [[Double]] {
        precondition(pts.count == video.frames.count, "ffprobe and ffmpeg see as many frames")
        return regions.map { region in
            let r = region ?? (0, 0, video.width, video.height)
            var onsets: [Double] = []
            var was = false
            for (k, frame) in video.frames.enumerated() {
                var sum = 0, n = 0
                for y in stride(from: r.y + 2, to: r.y + r.h - 2, by: 2) {
                    for x in stride(from: r.x + 2, to: r.x + r.w - 2, by: 2) { sum += Int(frame[y * video.width + x]); n += 1 }
                }
                let white = n > 0 && Double(sum) / Double(n) > 128
                if white && !was { onsets.append(pts[k]) }
                was = white
            }
            return onsets
        }
    }

    /// Beep onsets: the first sample of each burst whose magnitude passes 0.25 (the hums, 0.02 each, stay
    /// under 0.1 even four of them mixed), after at least 50 ms below it. `tone`: only bursts of that frequency (a
    /// 2 ms Goertzel window after the onset must hold it), for mixes of several.
    static func beeps(_ url: URL, tone: Double? = nil) throws -> [Double] {
        beeps(in: try AudioAnalysis.decodeMono(url), tone: tone)
    }

    /// `beeps` of each of `tones`, from one decode of the sound (a mix of several).
    static func beeps(_ url: URL, tones: [Double]) throws -> [[Double]] {
        let s = try AudioAnalysis.decodeMono(url)
        return tones.map { beeps(in: s, tone: $0) }
    }

    /// `beeps` in mono samples at 48 kHz.
    static func beeps(in s: [Float], tone: Double?) -> [Double] {
        var onsets: [Double] = []
        var quietSince = 0, loud = false
        for (n, x) in s.enumerated() {
            if abs(x) > 0.25 {
                if !loud && n - quietSince >= 2400 {
                    let window = s[n..<min(s.count, n + 480)]
                    if let tone {
                        let here = AudioAnalysis.goertzelPower(window, frequency: tone, rate: 48000)
                        let all = window.reduce(0.0) { $0 + Double($1 * $1) } / Double(window.count)
                        if here > all * 0.5 { onsets.append(Double(n) / 48000) }
                    } else {
                        onsets.append(Double(n) / 48000)
                    }
                }
                loud = true
                quietSince = n
            } else if loud && n - quietSince >= 240 {
                loud = false
            }
        }
        return onsets
    }
}
