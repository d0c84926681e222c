import Atomics
import CFFmpeg
import Compositor

/// Owns one AVFrame, freed in deinit. A video frame of Lockstep's working format (yuv420p)
/// lends its planes as a `YUVImage` view.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>
    /// What the sync knows of this frame, set by the reader.
    public var source: SourceFrame?
    /// Which pool the frame belongs to (an input's index), so it finds its way back.
    public var tag = -1
    /// The payload (after the UUID) of a user-data SEI with the reader's `userDataUUID`, if the
    /// decoded picture carried one.
    public var userData: [UInt8]?

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

    func allocate(width: Int, height: Int) throws {
        av_frame_unref(pointer)
        pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    var hasBuffers: Bool { pointer.pointee.buf.0 != nil }
    var isYUV420P: Bool { pointer.pointee.format == AV_PIX_FMT_YUV420P.rawValue }

    /// The planes, borrowed. Valid while the frame holds these buffers.
    public var image: YUVImage {
        precondition(isYUV420P, "frame is not yuv420p")
        let f = pointer.pointee
        let w = Int(f.width), h = Int(f.height), cw = (w + 1) / 2, ch = (h + 1) / 2
        return YUVImage(y: Plane(base: f.data.0!, stride: Int(f.linesize.0), width: w, height: h),
                        u: Plane(base: f.data.1!, stride: Int(f.linesize.1), width: cw, height: ch),
                        v: Plane(base: f.data.2!, stride: Int(f.linesize.2), width: cw, height: ch))
    }

    /// Makes sure nobody else holds these buffers (the encoder may still reference them);
    /// copies only if someone does.
    public func makeWritable() throws { try check(av_frame_make_writable(pointer), "av_frame_make_writable") }

    func unref() { av_frame_unref(pointer); source = nil; userData = nil }

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
