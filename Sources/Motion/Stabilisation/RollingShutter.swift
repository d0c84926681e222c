/// A rolling shutter: the frame's rows are exposed one after another over `readout`, the
/// middle row at the frame's time. Row y (0 at the top) of `rows` is exposed at
/// t - readout / 2 + readout * y / rows (Gyroflow's timing; bottom-to-top sensors read the
/// other way).
public struct RollingShutter: Equatable, Sendable {
    /// Seconds from the first row to the last; 0 for a global shutter.
    public var readout: Double
    /// True when the sensor reads from the bottom row up.
    public var bottomUp = false

    public init(readout: Double, bottomUp: Bool = false) { self.readout = readout; self.bottomUp = bottomUp }
    public static let global = RollingShutter(readout: 0)

    /// The time (ns) row `y` (may be fractional) of `rows` is exposed, for a frame at `t` (ns).
    @inlinable public func rowTime(frame t: Int64, row y: Double, rows: Int) -> Int64 {
        guard readout > 0, rows > 0 else { return t }
        let f = bottomUp ? 1 - y / Double(rows) : y / Double(rows)
        return t + Int64(((-readout / 2 + readout * f) * 1e9).rounded())
    }
}
