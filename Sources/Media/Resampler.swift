import CFFmpeg

/// Decoded audio on Lockstep's audio clock: 48 kHz stereo, planar float, handed to a sink. The
/// samples are lent inside `withSamples`; the value keeps their memory alive (a value kept past
/// the sink reads memory the resampler has since refilled, never freed memory).
public struct AudioSamples {
    /// Position of the first sample, in 1/48000 s, on the input's own clock (its pts).
    public let start: Int64
    public let count: Int
    let storage: SampleStorage

    public func withSamples<R>(_ body: (_ left: UnsafeBufferPointer<Float>, _ right: UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) {
            try body(UnsafeBufferPointer(start: storage.left, count: count), UnsafeBufferPointer(start: storage.right, count: count))
        }
    }
}

/// The resampler's output planes; replaced (never resized in place) when more room is needed.
final class SampleStorage {
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    let capacity: Int
    init(capacity: Int) {
        self.capacity = capacity
        left = .allocate(capacity: capacity); right = .allocate(capacity: capacity)
    }
    deinit { left.deallocate(); right.deallocate() }
}

public enum AudioFormat {
    public static let sampleRate = 48_000
    public static let channels = 2
}

/// Owns one SwrContext converting whatever the decoder gives into 48 kHz stereo float planar,
/// with libswresample's standard downmix (5.1: centre and surrounds at -3 dB) and upmix.
///
/// With `driftPpb` (an input whose clock runs fast or slow against the reference) the output is
/// stretched onto the corrected clock with libswresample's compensation: before each frame it is
/// aimed so that the samples out, with those still in the resampler, match the input taken so
/// far times 48000 / (rate x (1 + drift)); an error left by the compensation's integer step is
/// taken back in the next frame's aim, so it never accumulates.
final class Resampler {
    private var context: OpaquePointer?
    private var inputKey: (Int32, Int32, UInt64, Int32) = (0, 0, 0, 0)
    private var storage = SampleStorage(capacity: 8192)
    let path: String
    /// Parts per billion by which the input's clock runs fast (0: plain conversion).
    var driftPpb: Int64 = 0
    /// Since the current context was made: input samples given, output samples taken.
    private var fedIn: Int64 = 0, gotOut: Int64 = 0
    private var inputRate: Int64 = 0
    /// The distance over which each compensation is spread: a second of output.
    private static let compensationDistance = Int32(AudioFormat.sampleRate)

    init(path: String) { self.path = path }
    deinit { var c = context; swr_free(&c) }

    /// Converts `frame` (nil: flush what the resampler still holds) and hands the result to `sink`.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>?, start: Int64, sink: (AudioSamples) -> Void) throws -> Int {
        if let frame { try configure(for: frame) }
        guard let context else { return 0 }
        let inCount = frame.map { Int32($0.pointee.nb_samples) } ?? 0
        if driftPpb != 0 { try compensate(context) }
        let needed = Int(swr_get_out_samples(context, inCount)) + 16
        if needed > storage.capacity { storage = SampleStorage(capacity: needed * 2) }
        let storage = self.storage
        let out = try withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: 2) { planes -> Int32 in
            planes[0] = UnsafeMutableRawPointer(storage.left).assumingMemoryBound(to: UInt8.self)
            planes[1] = UnsafeMutableRawPointer(storage.right).assumingMemoryBound(to: UInt8.self)
            let input: UnsafeMutablePointer<UnsafePointer<UInt8>?>? = frame.map {
                UnsafeMutableRawPointer($0.pointee.extended_data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            }
            return try check(swr_convert(context, planes.baseAddress, Int32(storage.capacity), input, inCount), "swr_convert", path: path)
        }
        fedIn += Int64(inCount); gotOut += Int64(out)
        if out > 0 { sink(AudioSamples(start: start, count: Int(out), storage: storage)) }
        return Int(out)
    }

    /// Aims the next second of output at the corrected clock (see the type's comment).
    private func compensate(_ context: OpaquePointer) throws {
        guard inputRate > 0 else { return }
        // Output samples the input taken so far should have made: fedIn * 48000 / (rate * (1 + d)).
        let wanted = Int128(fedIn) * Int128(AudioFormat.sampleRate) * 1_000_000_000 / (Int128(inputRate) * Int128(1_000_000_000 + driftPpb))
        let have = Int128(gotOut) + Int128(swr_get_delay(context, Int64(AudioFormat.sampleRate)))
        let n = Int128(Self.compensationDistance)
        // Over n output samples, -d * n more (a fast clock's audio is squeezed), plus what is owed.
        var delta = -Int128(driftPpb) * n / 1_000_000_000 + (wanted - have)
        delta = max(-n / 8, min(n / 8, delta))
        try check(swr_set_compensation(context, Int32(delta), Self.compensationDistance), "swr_set_compensation", path: path)
    }

    private func configure(for frame: UnsafeMutablePointer<AVFrame>) throws {
        let f = frame.pointee
        var inLayout = AVChannelLayout()
        if f.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || f.ch_layout.nb_channels == 0 {
            av_channel_layout_default(&inLayout, max(1, f.ch_layout.nb_channels))
        } else {
            try check(av_channel_layout_copy(&inLayout, [f.ch_layout]), "av_channel_layout_copy", path: path)
        }
        defer { av_channel_layout_uninit(&inLayout) }
        let key = (f.format, f.sample_rate, inLayout.u.mask, inLayout.nb_channels)
        if context != nil && key == inputKey { return }
        // A format change mid-stream: start a new resampler (rare; keeps the mapping exact).
        var c = context; swr_free(&c); context = nil
        var outLayout = swift_AV_CHANNEL_LAYOUT_STEREO()
        var ctx: OpaquePointer?
        try check(
            swr_alloc_set_opts2(
                &ctx, &outLayout, AV_SAMPLE_FMT_FLTP, Int32(AudioFormat.sampleRate),
                &inLayout, AVSampleFormat(rawValue: f.format), f.sample_rate, 0, nil),
            "swr_alloc_set_opts2", path: path)
        if driftPpb != 0 {
            // Compensation needs the resampler even at 48 kHz in.
            try check(av_opt_set_int(UnsafeMutableRawPointer(ctx), "flags", Int64(SWR_FLAG_RESAMPLE), 0), "av_opt_set_int(flags)", path: path)
        }
        try check(swr_init(ctx), "swr_init", path: path)
        context = ctx
        inputKey = key
        fedIn = 0; gotOut = 0; inputRate = Int64(f.sample_rate)
    }
}
