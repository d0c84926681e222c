import Compositor

/// A frame from which a filter chain is in force (`lockstep filter`, `--filter`, `--filter-at`),
/// read from the frames' provenance.
public struct FilterSwitch: Codable, Equatable, Sendable {
    /// Output frame number (its position in the file).
    public var frame: Int
    /// Seconds after the first frame.
    public var time: Double
    /// The chain as written ("none" for none).
    public var filter: String
    public init(frame: Int, time: Double, filter: String) { self.frame = frame; self.time = time; self.filter = filter }
}

extension Checks {
    /// The first frame that names a chain, then every frame whose chain differs from the one
    /// before it that named one (a frame without a record switches nothing). Empty when no frame
    /// names a chain.
    public static func filterSwitches(_ frames: [ScannedFrame]) -> [FilterSwitch] {
        var switches: [FilterSwitch] = []
        guard let first = frames.first?.pts else { return switches }
        for (k, frame) in frames.enumerated() {
            guard let chain = frame.provenance?.filter, chain != switches.last?.filter else { continue }
            switches.append(FilterSwitch(frame: k, time: difference(first, frame.pts)?.seconds ?? .nan, filter: chain))
        }
        return switches
    }
}
