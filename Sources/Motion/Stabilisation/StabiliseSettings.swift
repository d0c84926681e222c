/// How the picture is cropped to hide the borders the warp brings in (`--zoom`).
public enum ZoomMode: String, CaseIterable, Sendable {
    /// One zoom for the whole clip: the smallest that never shows a border.
    case `static`
    /// A zoom that changes over time (smoothed), never less than each frame needs.
    case dynamic
    /// No zoom: the output keeps the source's scale, borders may show.
    case none
}

/// What `stabilise` was asked, pure.
public struct StabiliseSettings: Equatable, Sendable {
    public var smoothing = SmoothingMethod.default
    /// Seconds: the smoothing's time constant at rest.
    public var smoothness = 0.5
    /// 0...1: how much of the roll against gravity is taken out (`--horizon-lock`); nil: none.
    public var horizonLock: Double?
    /// The rolling shutter's readout, where known.
    public var shutter = RollingShutter.global
    public var zoom = ZoomMode.static
    /// The largest zoom used; a frame that needs more shows its border.
    public var maxZoom = 1.5

    public init() {}
}
