/// Which source frames an output frame was made of, carried inside the output movie.
///
/// Carrier: one H.264 SEI "user data unregistered" message per frame (libx264 writes the
/// frame's AV_FRAME_DATA_SEI_UNREGISTERED side data when its `udu_sei` option is on; FFmpeg's
/// h264 decoder hands it back on the decoded frame; a `-c copy` remux keeps it).
/// Payload: the 16-byte UUID below (the ASCII bytes of "LOCKSTEP-PROV-v1"), then UTF-8 JSON:
///
///     every frame:   {"k":12,"src":[[12,6144],[12,1080]]}
///                     k = output frame index; src[i] = [source frame index, source pts] of input i,
///                     pts exact in that input's time base
///     frame 0 also:  "sync":"index", "blend":"chromakey", "fps":"30/1",
///                    "inputs":[{"name":"fg.mp4","timeBase":"1/15360","audio":true}, ...]
///     under --conceal, a frame whose chosen source frames include damaged ones (decoding met
///     errors it concealed) also: "damaged":[1] (the inputs concerned)
///     under `lockstep filter`, every frame also: "filter":"blur:radius=2,mono" (the chain in
///     force for that frame, as written; "none" for none)
///     `lockstep composite`/`snake`, every frame after a render's first also: "change":0.42, the
///     mean absolute luma difference of the rendered picture (before encoding) from the one
///     rendered before it (`RenderedChange`), so `verify` can tell a still source from a
///     picture lost on the way to the file; files without it are checked as before
///     `lockstep concat`: "sync":"concat", src holds the one source frame shown, "clip" says
///     which input it comes from, and each header input may give its "frames" (the count it
///     shows, an edit list applied), so `verify` can tell a join that lost frames
///
///     Time placement (issue 21 and 24; files without these fields read as before):
///     src[i] may be [index, pts, until]: under time sync the chosen frame is on screen from
///       pts until `until` (the next frame's pts, or the input's end), so `verify` proves each
///       drop and repeat from time alone; [] where input i is absent from the frame (`--longest`:
///       it has not started or has ended)
///     "held":[i]: input i shows its last frame past its end (`--hold-last`)
///     header: "start":"7/2" (seconds of the first input's clock at output time 0, when not 0),
///       "coverage":"longest", "holdLast":true; per input "origin" (its first frame's pts),
///       "offset":"-1/3", "driftPpm":120.5, "trim":"1.5:9" (as the options give them), "still":true
///     concat by time (the default): header "timing":"time", per input "duration" (its stream's
///       length, seconds, as its container says); a clip's first output frame carries
///       "clipStart":"3/2" (output time where the clip's time 0 lies) and "origin" (its frame 0's pts)
///
///     A cut (`--frames A:B`, a segment render; issue 43): its first frame carries the header
///       too, with "first":A (that frame is frame A of the single pass: k = A), so `verify` reads
///       the cut as the part of the single pass it is; files without it read as before
///     "black":true on a frame whose rendered picture is black and so is every source picture
///       it was made from (`BlackPicture`: a fade's black frames), so `verify` can tell a
///       faithful fade from a picture lost on the way to the file
public struct Provenance: Codable, Equatable, Sendable {
    public static let uuid: [UInt8] = Array("LOCKSTEP-PROV-v1".utf8)

    public struct Input: Codable, Equatable, Sendable {
        public var name: String
        public var timeBase: String
        public var audio: Bool
        /// The input's frame count as it shows (concat's header: an edit list's hidden frames
        /// left out), if known.
        public var frames: Int64?
        /// Its first frame's pts: where its own time 0 is.
        public var origin: Int64?
        /// Its clock under time sync (`InputClock`), each field only when not the default.
        public var offset: String?
        public var driftPpm: Double?
        public var trim: String?
        /// A still picture: shown at every frame.
        public var still: Bool?
        /// Concat by time: the stream's length as its container says, seconds (rational).
        public var duration: String?
        public init(name: String, timeBase: String, audio: Bool, frames: Int64? = nil) {
            self.name = name; self.timeBase = timeBase; self.audio = audio; self.frames = frames
        }
    }

    public var k: Int64
    public var src: [[Int64]]
    public var sync: String?
    public var blend: String?
    public var fps: String?
    public var inputs: [Input]?
    /// Under --conceal: the inputs whose chosen source frame had damage the decoder concealed.
    public var damaged: [Int]?
    /// Under `filter` (and `--filter-at`): the chain in force for this frame, as written ("none" for none).
    public var filter: String?
    /// Under concat: the input (clip) the one source frame in `src` comes from.
    public var clip: Int?
    /// How much the rendered picture changed from the previous rendered one (`RenderedChange`),
    /// mean absolute luma difference, two decimals; nil where not measured.
    public var change: Double?
    /// Time placement (see the type's comment).
    public var start: String?
    public var coverage: String?
    public var holdLast: Bool?
    public var held: [Int]?
    public var timing: String?
    public var clipStart: String?
    public var origin: Int64?
    /// A cut's header: the single pass's index of its first frame (see the type's comment).
    public var first: Int64?
    /// The picture and all its sources are black (see the type's comment).
    public var black: Bool?

    public init(k: Int64, src: [[Int64]], sync: String? = nil, blend: String? = nil, fps: String? = nil, inputs: [Input]? = nil) {
        self.k = k; self.src = src; self.sync = sync; self.blend = blend; self.fps = fps; self.inputs = inputs
    }

    /// UUID + JSON, as it goes into the SEI message.
    public func payload() -> [UInt8] {
        var json = "{\"k\":\(k),\"src\":[" + src.map { "[\($0.map(String.init).joined(separator: ","))]" }.joined(separator: ",") + "]"
        if let clip { json += ",\"clip\":\(clip)" }
        if let sync { json += ",\"sync\":\(Provenance.quote(sync))" }
        if let blend { json += ",\"blend\":\(Provenance.quote(blend))" }
        if let fps { json += ",\"fps\":\(Provenance.quote(fps))" }
        if let first { json += ",\"first\":\(first)" }
        if let timing { json += ",\"timing\":\(Provenance.quote(timing))" }
        if let start { json += ",\"start\":\(Provenance.quote(start))" }
        if let coverage { json += ",\"coverage\":\(Provenance.quote(coverage))" }
        if let holdLast { json += ",\"holdLast\":\(holdLast)" }
        if let inputs {
            json +=
                ",\"inputs\":["
                + inputs.map { i in
                    var o = "{\"name\":\(Provenance.quote(i.name)),\"timeBase\":\(Provenance.quote(i.timeBase)),\"audio\":\(i.audio)"
                    if let frames = i.frames { o += ",\"frames\":\(frames)" }
                    if let origin = i.origin { o += ",\"origin\":\(origin)" }
                    if let offset = i.offset { o += ",\"offset\":\(Provenance.quote(offset))" }
                    if let d = i.driftPpm, d.isFinite { o += ",\"driftPpm\":\(d)" }
                    if let trim = i.trim { o += ",\"trim\":\(Provenance.quote(trim))" }
                    if let still = i.still { o += ",\"still\":\(still)" }
                    if let duration = i.duration { o += ",\"duration\":\(Provenance.quote(duration))" }
                    return o + "}"
                }.joined(separator: ",") + "]"
        }
        if let clipStart { json += ",\"clipStart\":\(Provenance.quote(clipStart))" }
        if let origin { json += ",\"origin\":\(origin)" }
        if let held { json += ",\"held\":[" + held.map(String.init).joined(separator: ",") + "]" }
        if let damaged { json += ",\"damaged\":[" + damaged.map(String.init).joined(separator: ",") + "]" }
        if let filter { json += ",\"filter\":\(Provenance.quote(filter))" }
        if let change, change.isFinite { json += ",\"change\":" + Provenance.hundredths(change) }
        if black == true { json += ",\"black\":true" }
        json += "}"
        return Provenance.uuid + Array(json.utf8)
    }

    /// JSON string literal with the escapes JSON requires.
    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += "\\u" + String(format4(u.value)) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// A non-negative number with two decimals ("0.42", "12.00"); JSON has no NaN or infinity.
    static func hundredths(_ v: Double) -> String {
        let c = Int64((max(0, min(v, 1e9)) * 100).rounded())
        let cents = c % 100
        return "\(c / 100)." + (cents < 10 ? "0" : "") + "\(cents)"
    }

    private static func format4(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }
}
