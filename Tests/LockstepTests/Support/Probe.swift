import Foundation

/// What ffprobe (the outside checker) says of a file's streams.
struct ProbeStream {
    var codecType: String
    var codecName: String
    var duration: Double?
    var nbReadFrames: Int?
    var width: Int?, height: Int?
    var sampleRate: Int?
    var channels: Int?
    var startTime: Double?
}

enum Probe {
    static func streams(_ url: URL) throws -> [ProbeStream] {
        let data = try Shell.check("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-print_format", "json", "-show_streams", url.path])
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any], let streams = json["streams"] as? [[String: Any]] else {
            throw Shell.Failure(description: "\(url.path): ffprobe gave no streams")
        }
        func d(_ v: Any?) -> Double? { (v as? String).flatMap(Double.init) }
        func i(_ v: Any?) -> Int? { (v as? Int) ?? (v as? String).flatMap { Int($0) } }
        return streams.map { s in
            ProbeStream(codecType: s["codec_type"] as? String ?? "", codecName: s["codec_name"] as? String ?? "",
                        duration: d(s["duration"]), nbReadFrames: i(s["nb_read_frames"]), width: i(s["width"]), height: i(s["height"]),
                        sampleRate: i(s["sample_rate"]), channels: i(s["channels"]), startTime: d(s["start_time"]))
        }
    }
}

enum VideoTimestamps {
    /// The first video stream's frame times in presentation order, seconds.
    static func pts(_ url: URL) throws -> [Double] {
        let data = try Shell.check("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", url.path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
    }
}

enum AudioAnalysis {
    /// The file's audio, mixed to mono, as floats at `rate`, decoded by the ffmpeg CLI.
    static func decodeMono(_ url: URL, rate: Int = 48000) throws -> [Float] {
        let data = try Shell.check("/usr/bin/ffmpeg", ["-v", "error", "-i", url.path, "-vn", "-ac", "1", "-ar", String(rate), "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Mean power at one frequency (Goertzel), normalised so a full-scale sine gives about 0.5.
    static func goertzelPower(_ s: ArraySlice<Float>, frequency: Double, rate: Double) -> Double {
        guard !s.isEmpty else { return 0 }
        let w = 2 * Double.pi * frequency / rate, coeff = 2 * cos(w)
        var q1 = 0.0, q2 = 0.0
        for x in s { let q0 = coeff * q1 - q2 + Double(x); q2 = q1; q1 = q0 }
        let power = q1 * q1 + q2 * q2 - coeff * q1 * q2
        let n = Double(s.count)
        return 2 * power / (n * n)
    }

    /// Power at each frequency over the whole file.
    static func toneLevels(_ url: URL, frequencies: [Double]) throws -> [Double: Double] {
        let s = try decodeMono(url)
        return Dictionary(uniqueKeysWithValues: frequencies.map { ($0, goertzelPower(s[...], frequency: $0, rate: 48000)) })
    }
}
