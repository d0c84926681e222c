import Compositor

/// What a scan of a movie yields: numbers per frame, never pictures.
public struct ScannedFrame: Sendable {
    public var pts: Timestamp
    public var meanLuma: Double
    /// Standard deviation of luma: low with a low mean is a black frame.
    public var lumaDeviation: Double
    /// Mean absolute luma difference from the previous frame (nil for the first).
    public var difference: Double?
    public var provenance: Provenance?
    public init(pts: Timestamp, meanLuma: Double, lumaDeviation: Double, difference: Double?, provenance: Provenance?) {
        self.pts = pts; self.meanLuma = meanLuma; self.lumaDeviation = lumaDeviation; self.difference = difference; self.provenance = provenance
    }
}

public struct ScannedAudio: Sendable {
    /// Seconds, as the container says (start_time; start + duration).
    public var start: Double
    public var end: Double
    /// RMS level of the last 100 ms and of the whole track, dBFS.
    public var tailLevel: Double
    public var overallLevel: Double
    /// How finely the file can place its audio's end, seconds: one codec frame (AAC: 1024
    /// samples, 21.3 ms at 48 kHz) where the container does not trim the last one (a camera's
    /// file: a whole number of frames), 0 where it does (an MP4 edit list: to the sample).
    public var endResolution: Double
    /// Encoder priming (seconds) decoded at the audio's start that the container cannot mark
    /// as discarded (AAC in Matroska, which has no edit list): the muxer moved every stream
    /// later by it instead, so the video starts there and the audible audio with it.
    public var priming: Double
    public init(start: Double, end: Double, tailLevel: Double, overallLevel: Double, endResolution: Double = 0, priming: Double = 0) {
        self.start = start; self.end = end; self.tailLevel = tailLevel; self.overallLevel = overallLevel
        self.endResolution = endResolution; self.priming = priming
    }
}

public struct Scan: Sendable {
    public var path: String
    public var frames: [ScannedFrame]
    /// The video stream's duration as the container says, seconds.
    public var videoDuration: Double?
    public var audio: ScannedAudio?
    public init(path: String, frames: [ScannedFrame], videoDuration: Double?, audio: ScannedAudio?) {
        self.path = path; self.frames = frames; self.videoDuration = videoDuration; self.audio = audio
    }
}

public struct Violation: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case firstTimestamp, repeatedTimestamp, reorderedTimestamp, missingFrames, irregularStep, countVersusDuration
        case provenanceMissing, provenanceMalformed, droppedSource, duplicatedSource, reorderedSource, sourceFromTheFuture, staleSource
        case frozenFrame, repeatedPicture, blackStart, blackEnd
        /// `silentEnd` is no longer reported (a quiet end is no fault); kept so older reports decode.
        case audioStart, audioEnd, silentEnd, audioMissing
        case noFrames
    }
    public var kind: Kind
    /// Output frame number, where one is concerned.
    public var frame: Int?
    /// Seconds, where a time is concerned.
    public var time: Double?
    public var message: String
    public init(_ kind: Kind, frame: Int? = nil, time: Double? = nil, _ message: String) {
        self.kind = kind; self.frame = frame; self.time = time; self.message = message
    }
}

public struct VerifyReport: Codable, Equatable, Sendable {
    public var file: String
    public var frames: Int
    public var frameStep: Double?
    public var provenance: Bool
    public var sync: String?
    public var inputs: [String]?
    public var audio: Bool
    public var violations: [Violation]
    /// Where the filter chain changes (the first entry: frame 0's); nil when no frame names one.
    public var filterSwitches: [FilterSwitch]?
    public var ok: Bool { violations.isEmpty }

    enum CodingKeys: String, CodingKey { case file, frames, frameStep, provenance, sync, inputs, audio, violations, filterSwitches, ok }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file); try c.encode(frames, forKey: .frames); try c.encodeIfPresent(frameStep, forKey: .frameStep)
        try c.encode(provenance, forKey: .provenance); try c.encodeIfPresent(sync, forKey: .sync); try c.encodeIfPresent(inputs, forKey: .inputs)
        try c.encode(audio, forKey: .audio); try c.encode(violations, forKey: .violations)
        try c.encodeIfPresent(filterSwitches, forKey: .filterSwitches); try c.encode(ok, forKey: .ok)
    }
    public init(
        file: String, frames: Int, frameStep: Double?, provenance: Bool, sync: String?, inputs: [String]?, audio: Bool, violations: [Violation],
        filterSwitches: [FilterSwitch]? = nil
    ) {
        self.file = file; self.frames = frames; self.frameStep = frameStep; self.provenance = provenance; self.sync = sync
        self.inputs = inputs; self.audio = audio; self.violations = violations; self.filterSwitches = filterSwitches
    }
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        file = try c.decode(String.self, forKey: .file); frames = try c.decode(Int.self, forKey: .frames)
        frameStep = try c.decodeIfPresent(Double.self, forKey: .frameStep); provenance = try c.decode(Bool.self, forKey: .provenance)
        sync = try c.decodeIfPresent(String.self, forKey: .sync); inputs = try c.decodeIfPresent([String].self, forKey: .inputs)
        audio = try c.decode(Bool.self, forKey: .audio); violations = try c.decode([Violation].self, forKey: .violations)
        filterSwitches = try c.decodeIfPresent([FilterSwitch].self, forKey: .filterSwitches)
    }
}
