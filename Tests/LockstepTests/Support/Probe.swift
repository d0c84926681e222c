import Foundation

/// What ffprobe (the outside checker) says of one stream. `nbReadFrames` is counted by decoding
/// (`-count_frames`); `nbFrames` is what the container claims.
struct ProbeStream {
    var codecType: String
    var codecName: String
    var duration: Double?
    var nbReadFrames: Int?
    var width: Int?, height: Int?
    var sampleRate: Int?
    var channels: Int?
    var startTime: Double?
    var nbFrames: Int? = nil
    var pixFmt: String? = nil
    var channelLayout: String? = nil
    /// r_frame_rate as a number (30/1 → 30).
    var frameRate: Double? = nil
}

/// What ffprobe says of the container.
struct ProbeFormat {
    var formatName: String
    var startTime: Double?
    var duration: Double?
}

struct Probe {
    /// `ffprobe -v error -print_format json -show_streams -show_format -count_frames FILE`.
    static func streams(_ url: URL) throws -> [ProbeStream] { try probe(url).streams }

    static func format(_ url: URL) throws -> ProbeFormat { try probe(url).format }

    static func probe(_ url: URL) throws -> (streams: [ProbeStream], format: ProbeFormat) {
        let data = try Shell.check("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", "-count_frames", url.path])
        return try parse(data, url)
    }

    /// `streams` and the first video stream's frame times in seconds (what `VideoTimestamps.pts`
    /// gives) from one ffprobe run, which decodes the file once for both.
    static func streamsAndVideoPTS(_ url: URL) throws -> (streams: [ProbeStream], pts: [Double]) {
        let data = try Shell.check(
            "ffprobe",
            [
                "-v", "error", "-print_format", "json", "-show_streams", "-show_format", "-count_frames",
                "-show_entries", "frame=stream_index,pts_time", url.path
            ])
        let streams = try parse(data, url).streams
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let all = json["streams"] as? [[String: Any]],
            let video = all.first(where: { $0["codec_type"] as? String == "video" }).flatMap({ int($0["index"]) })
        else {
            return (streams, [])
        }
        let frames = json["frames"] as? [[String: Any]] ?? []
        return (streams, frames.filter { int($0["stream_index"]) == video }.compactMap { double($0["pts_time"]) })
    }

    private static func parse(_ data: Data, _ url: URL) throws -> (streams: [ProbeStream], format: ProbeFormat) {
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let streams = json["streams"] as? [[String: Any]]
        else {
            throw Shell.Failure(description: "\(url.path): ffprobe gave no streams")
        }
        let format = json["format"] as? [String: Any] ?? [:]
        return (
            streams.map { s in
                ProbeStream(
                    codecType: s["codec_type"] as? String ?? "", codecName: s["codec_name"] as? String ?? "",
                    duration: double(s["duration"]), nbReadFrames: int(s["nb_read_frames"]),
                    width: int(s["width"]), height: int(s["height"]),
                    sampleRate: int(s["sample_rate"]), channels: int(s["channels"]), startTime: double(s["start_time"]),
                    nbFrames: int(s["nb_frames"]), pixFmt: s["pix_fmt"] as? String, channelLayout: s["channel_layout"] as? String,
                    frameRate: rational(s["r_frame_rate"]))
            },
            ProbeFormat(
                formatName: format["format_name"] as? String ?? "", startTime: double(format["start_time"]),
                duration: double(format["duration"]))
        )
    }

    // ffprobe's JSON gives most numbers as strings ("0.500000", "48000"), a few as numbers.
    private static func double(_ v: Any?) -> Double? { (v as? String).flatMap(Double.init) ?? (v as? NSNumber)?.doubleValue }
    private static func int(_ v: Any?) -> Int? { (v as? String).flatMap { Int($0) } ?? (v as? NSNumber)?.intValue }
    private static func rational(_ v: Any?) -> Double? {
        guard let parts = (v as? String)?.split(separator: "/"), parts.count == 2,
            let n = Double(parts[0]), let d = Double(parts[1]), d != 0
        else { return nil }
        return n / d
    }
}

enum VideoTimestamps {
    /// The first video stream's frame times in seconds, in presentation order
    /// (`ffprobe -select_streams v:0 -show_entries frame=pts_time -of csv=p=0`).
    static func pts(_ url: URL) throws -> [Double] {
        let data = try Shell.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", url.path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            line.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
    }
}

enum AudioAnalysis {
    /// The file's first audio stream mixed to mono by ffmpeg, as floats at `rate`
    /// (`ffmpeg -i FILE -vn -ac 1 -ar RATE -f f32le -`), from its first sample.
    static func decodeMono(_ url: URL, rate: Int = 48000) throws -> [Float] {
        let data = try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a:0", "-vn", "-ac", "1", "-ar", String(rate), "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Mean power at one frequency (Goertzel), normalised so that a full-scale sine of that
    /// frequency gives about 0.5 (its mean power) and silence 0.
    static func goertzelPower(_ s: ArraySlice<Float>, frequency: Double, rate: Double) -> Double {
        guard !s.isEmpty else { return 0 }
        let w = 2 * Double.pi * frequency / rate, coeff = 2 * cos(w)
        var q1 = 0.0, q2 = 0.0
        for x in s {
            let q0 = coeff * q1 - q2 + Double(x)
            q2 = q1; q1 = q0
        }
        let power = q1 * q1 + q2 * q2 - coeff * q1 * q2
        let n = Double(s.count)
        return 2 * power / (n * n)
    }

    /// goertzelPower at each frequency over the whole file (decoded to mono at 48 kHz).
    static func toneLevels(_ url: URL, frequencies: [Double]) throws -> [Double: Double] {
        let s = try decodeMono(url, rate: 48000)
        var levels: [Double: Double] = [:]
        for f in frequencies { levels[f] = goertzelPower(s[...], frequency: f, rate: 48000) }
        return levels
    }
}
