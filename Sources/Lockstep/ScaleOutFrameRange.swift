// Stand-in until branch `seg` lands: it defines FrameRange (Sources/Lockstep/FrameRange.swift)
// with this shape; delete this file when merging it.

/// Output frames [start, end) of a render (`--frames A:B`).
public struct FrameRange: Equatable, Sendable, CustomStringConvertible {
    public let start: Int64
    public let end: Int64
    public init(start: Int64, end: Int64) {
        precondition(start >= 0 && end > start, "frames \(start):\(end)")
        self.start = start; self.end = end
    }
    public var description: String { "\(start):\(end)" }
}
