import Atomics
import CFFmpeg
import Compositor

/// Owns one AVFrame, freed in deinit. A video frame of Lockstep's working format (yuv420p)
/// lends its planes inside `withImage`. It carries pictures only: what a frame is to the sync,
/// to a pool or to provenance is its user's business (`DecodedPicture`, the lanes).
// @unchecked Sendable: a frame is used by one thread at a time; it changes hands only through
// Lockstep's pools and queues (BoundedQueue, whose lock orders the hand-over), never shared.
public final class Frame: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let f = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = f
        let n = Frame.liveCount.wrappingIncrementThenLoad(ordering: .relaxed)
        var peak = Frame.peakCount.load(ordering: .relaxed)
        while n > peak {
            let (exchanged, original) = Frame.peakCount.compareExchange(expected: peak, desired: n, ordering: .relaxed)
            if exchanged { break }
            peak = original
        }
    }
    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
        Frame.liveCount.wrappingDecrement(ordering: .relaxed)
    }

    /// Frames alive now, and the most alive at once since `resetPeak()`: how the tests see that
    /// memory is bounded by the pools, whatever the input's length.
    public static var live: Int { liveCount.load(ordering: .relaxed) }
    public static var peak: Int { peakCount.load(ordering: .relaxed) }
    public static func resetPeak() { peakCount.store(liveCount.load(ordering: .relaxed), ordering: .relaxed) }
    private static let liveCount = ManagedAtomic(0)
    private static let peakCount = ManagedAtomic(0)

    /// A frame with its own yuv420p buffers of this size, painted `color`.
    public convenience init(width: Int, height: Int, color: YUVColor = .black) throws {
        self.init()
        try allocate(width: width, height: height)
        PlaneKernels.fill(image, color)
    }

    /// A frame with its own buffers for a picture of `signal`: yuv420p for SDR, yuv420p10le
    /// for the HDR working signals, painted black.
    public convenience init(width: Int, height: Int, signal: WorkingSignal) throws {
        self.init()
        try allocate(width: width, height: height, signal: signal)
        if signal.isHDR { PlaneKernels16.fill(image16, .black) } else { PlaneKernels.fill(image, .black) }
    }

    func allocate(width: Int, height: Int, signal: WorkingSignal = .sdr) throws {
        av_frame_unref(pointer)
        guard width > 0 && height > 0 else { throw MediaError("cannot make a \(width)x\(height) picture") }
        pointer.pointee.format = (signal.isHDR ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P).rawValue
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer(\(width)x\(height))")
        tag(signal)
    }

    /// Whether the frame holds an HDR working picture (yuv420p10le: `withImage16`).
    public var isHDR: Bool { pointer.pointee.format == AV_PIX_FMT_YUV420P10LE.rawValue }

    /// Lends the 16-bit planes of an HDR working picture, as `withImage` the 8-bit ones.
    public func withImage16<R>(_ body: (YUV16Image) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(image16) }
    }

    /// `withImages` for HDR working pictures.
    public static func withImages16<R>(_ frames: [Frame], in views: inout [YUV16Image], _ body: ([YUV16Image]) throws -> R) rethrows -> R {
        views.removeAll(keepingCapacity: true)
        for f in frames { views.append(f.image16) }
        defer { views.removeAll(keepingCapacity: true) }
        return try withExtendedLifetime(frames) { try body(views) }
    }

    /// The 16-bit planes, borrowed.
    var image16: YUV16Image {
        precondition(isHDR && hasBuffers, "frame is not a yuv420p10le picture")
        let f = pointer.pointee
        let w = Int(f.width), h = Int(f.height), cw = (w + 1) / 2, ch = (h + 1) / 2
        func plane(_ p: UnsafeMutablePointer<UInt8>?, _ stride: Int32, _ pw: Int, _ ph: Int) -> Plane16 {
            Plane16(base: UnsafeMutableRawPointer(p!).assumingMemoryBound(to: UInt16.self), stride: Int(stride) / 2, width: pw, height: ph, owner: self)
        }
        return YUV16Image(y: plane(f.data.0, f.linesize.0, w, h), u: plane(f.data.1, f.linesize.1, cw, ch), v: plane(f.data.2, f.linesize.2, cw, ch))
    }

    /// Says the picture holds `signal` (what every frame Lockstep makes holds: a conformer's
    /// output, a canvas, a test picture), so that reading it back needs no guess.
    func tag(_ signal: WorkingSignal) {
        let f = pointer
        switch signal {
        case .sdr: f.pointee.color_primaries = AVCOL_PRI_BT709; f.pointee.color_trc = AVCOL_TRC_BT709; f.pointee.colorspace = AVCOL_SPC_BT709
        case .hlg: f.pointee.color_primaries = AVCOL_PRI_BT2020; f.pointee.color_trc = AVCOL_TRC_ARIB_STD_B67; f.pointee.colorspace = AVCOL_SPC_BT2020_NCL
        case .pq: f.pointee.color_primaries = AVCOL_PRI_BT2020; f.pointee.color_trc = AVCOL_TRC_SMPTE2084; f.pointee.colorspace = AVCOL_SPC_BT2020_NCL
        }
        f.pointee.color_range = AVCOL_RANGE_MPEG
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    var hasBuffers: Bool { pointer.pointee.buf.0 != nil }
    var isYUV420P: Bool { pointer.pointee.format == AV_PIX_FMT_YUV420P.rawValue }

    /// Lends the planes for the duration of `body`. The view must not escape it: the buffers
    /// belong to the frame and change when it is refilled.
    public func withImage<R>(_ body: (YUVImage) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(image) }
    }

    /// Lends the planes of several frames at once (a blend's inputs) in `views`, a caller's
    /// array kept so the per-frame path allocates nothing; emptied again afterwards.
    public static func withImages<R>(_ frames: [Frame], in views: inout [YUVImage], _ body: ([YUVImage]) throws -> R) rethrows -> R {
        views.removeAll(keepingCapacity: true)
        for f in frames { views.append(f.image) }
        defer { views.removeAll(keepingCapacity: true) }
        return try withExtendedLifetime(frames) { try body(views) }
    }

    /// The planes, borrowed; Media's own code uses them only while it holds the frame.
    var image: YUVImage {
        // yuva420p (an input with alpha, AlphaConformer): the same three planes, alpha aside.
        precondition((isYUV420P || isYUVA420P) && hasBuffers, "frame is not a yuv420p picture")
        let f = pointer.pointee
        let w = Int(f.width), h = Int(f.height), cw = (w + 1) / 2, ch = (h + 1) / 2
        return YUVImage(
            y: Plane(base: f.data.0!, stride: Int(f.linesize.0), width: w, height: h, owner: self),
            u: Plane(base: f.data.1!, stride: Int(f.linesize.1), width: cw, height: ch, owner: self),
            v: Plane(base: f.data.2!, stride: Int(f.linesize.2), width: cw, height: ch, owner: self))
    }

    /// Makes sure nobody else holds these buffers (the encoder may still reference them);
    /// copies only if someone does.
    public func makeWritable() throws { try check(av_frame_make_writable(pointer), "av_frame_make_writable") }

    func unref() { av_frame_unref(pointer) }

    /// Replaces the frame's user-data-unregistered SEI payload (16-byte UUID, then data), which
    /// libx264 writes into the stream with its `udu_sei` option.
    public func setUserDataSEI(_ payload: [UInt8]) throws {
        av_frame_remove_side_data(pointer, AV_FRAME_DATA_SEI_UNREGISTERED)
        guard let sd = av_frame_new_side_data(pointer, AV_FRAME_DATA_SEI_UNREGISTERED, payload.count) else {
            throw MediaError("av_frame_new_side_data: out of memory")
        }
        payload.withUnsafeBytes { sd.pointee.data.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: payload.count) }
    }
}

/// Owns one AVPacket.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>
    init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = p
    }
    deinit { var p: UnsafeMutablePointer<AVPacket>? = pointer; av_packet_free(&p) }
    func unref() { av_packet_unref(pointer) }
}
