/// How the IMU's clock maps onto the video's: video time = IMU time + offset(video time), the
/// offset a line in video time (a constant offset plus clock drift), piecewise where the IMU's
/// clock jumped (a camera's loop-recording join, a resynchronised logger). Times are seconds of
/// video time from the first frame (which Lockstep's streams put at 0) and of IMU time.
///
/// A piece holds from its `fromVideoS` until the next piece starts; the first piece also holds
/// before its start. Its offset is `offsetMs + driftPpm * 1e-6 * v * 1000` ms at video time v
/// (the intercept is at v = 0 for every piece, so one formula serves them all).
public struct ClockMapping: Codable, Equatable, Sendable {
    public struct Piece: Codable, Equatable, Sendable {
        public var fromVideoS: Double
        public var offsetMs: Double
        public var driftPpm: Double
        public init(fromVideoS: Double, offsetMs: Double, driftPpm: Double = 0) {
            self.fromVideoS = fromVideoS; self.offsetMs = offsetMs; self.driftPpm = driftPpm
        }
        public func offsetMs(atVideo v: Double) -> Double { offsetMs + driftPpm * 1e-3 * v }
        /// The video time of IMU time t under this piece's line: v = t + offset(v), solved for v.
        func videoTime(fromIMU t: Double) -> Double { (t + offsetMs / 1000) / (1 - driftPpm * 1e-6) }
    }

    /// Sorted by `fromVideoS`, never empty.
    public private(set) var pieces: [Piece]

    public init(pieces: [Piece]) {
        precondition(!pieces.isEmpty, "a clock mapping has at least one piece")
        self.pieces = pieces.sorted { $0.fromVideoS < $1.fromVideoS }
    }

    public static func constant(offsetMs: Double, driftPpm: Double = 0) -> ClockMapping {
        ClockMapping(pieces: [Piece(fromVideoS: 0, offsetMs: offsetMs, driftPpm: driftPpm)])
    }

    private func pieceIndex(atVideo v: Double) -> Int {
        var i = 0
        while i + 1 < pieces.count && pieces[i + 1].fromVideoS <= v { i += 1 }
        return i
    }

    /// Offset in ms at video time v (seconds from the first frame).
    public func offsetMs(atVideo v: Double) -> Double { pieces[pieceIndex(atVideo: v)].offsetMs(atVideo: v) }

    /// IMU time of video time v.
    public func imuTime(fromVideo v: Double) -> Double { v - offsetMs(atVideo: v) / 1000 }

    /// Video time of IMU time t. At a forward jump of the IMU's clock some IMU times belong to
    /// no piece (they map into a later piece's span under an earlier piece's line); the latest
    /// piece whose span holds the solution wins, so the mapping stays monotonic.
    public func videoTime(fromIMU t: Double) -> Double {
        for i in pieces.indices.reversed() {
            let v = pieces[i].videoTime(fromIMU: t)
            if i == 0 || v >= pieces[i].fromVideoS { return v }
        }
        return pieces[0].videoTime(fromIMU: t)
    }

    /// Nanosecond forms of the two conversions, for the motion stream's integer clocks. The
    /// offset is added in integers first: IMU clocks count from boot or from 1970, where a
    /// Double of seconds would keep only about 0.25 us.
    public func videoNs(fromIMU t: Int64) -> Int64 {
        func solve(_ p: Piece) -> Int64 {
            let base = t &+ Int64((p.offsetMs * 1e6).rounded())
            return p.driftPpm == 0 ? base : Int64((Double(base) / (1 - p.driftPpm * 1e-6)).rounded())
        }
        for i in pieces.indices.reversed() {
            let v = solve(pieces[i])
            if i == 0 || Double(v) / 1e9 >= pieces[i].fromVideoS { return v }
        }
        return solve(pieces[0])
    }
    public func imuNs(fromVideo v: Int64) -> Int64 { v &- Int64((offsetMs(atVideo: Double(v) / 1e9) * 1e6).rounded()) }
}
