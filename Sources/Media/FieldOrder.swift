import CFFmpeg

/// How a stream's pictures are scanned, as its container or codec says (`field_order`).
public enum FieldOrder: String, Equatable, Sendable {
    case progressive
    /// Interlaced, top field first (coded and shown).
    case topFirst = "tt"
    /// Interlaced, bottom field first.
    case bottomFirst = "bb"
    /// Interlaced, top field coded first, bottom shown first (`tb`), and the reverse (`bt`).
    case topCodedBottomFirst = "tb"
    case bottomCodedTopFirst = "bt"

    init?(_ f: AVFieldOrder) {
        switch f {
        case AV_FIELD_PROGRESSIVE: self = .progressive
        case AV_FIELD_TT: self = .topFirst
        case AV_FIELD_BB: self = .bottomFirst
        case AV_FIELD_TB: self = .topCodedBottomFirst
        case AV_FIELD_BT: self = .bottomCodedTopFirst
        default: return nil
        }
    }

    /// ffprobe's word for it.
    var name: String { rawValue }

    public var isInterlaced: Bool { self != .progressive }
    /// Which field is shown first: what a deinterlacer's parity is.
    public var topFieldFirst: Bool { self == .topFirst || self == .bottomCodedTopFirst }
}
