/// A GPMF payload with its front cut off: what a cut that starts inside a payload keeps of it.
///
/// A payload (one `gpmd` sample, about 1 s) holds each stream's samples with no per-sample
/// times: readers spread a stream's n samples evenly over the packet's span (telemetry-parser,
/// gpmf-parser, `GoProIMU`), sample i at i * duration / n. A cut at `offset` seconds into the
/// packet keeps the samples from the first at or after it (k = ceil(offset * n / duration) are
/// removed) and the packet then starts at the cut: readers put its first kept sample at the cut,
/// less than one sample period before its true time. The packet cannot stay whole and start
/// before the output's 0: FFmpeg's demuxer (mov.c, `mov_fix_index`) snaps an edit list that
/// begins inside a data sample to the next sample (the straddling payload read a whole payload
/// early) and telemetry-parser ignores edit lists (it starts the track at 0).
public enum GPMFTrim {
    /// `payload` without the samples of each stream that lie before `offset` seconds into its
    /// packet of `duration` seconds. A stream (STRM) keeps its properties; its data (its last
    /// item) loses its first k samples; its STMP (the first sample's stamp, microseconds) and
    /// TICK (milliseconds) move on by k sample periods. Throws on a payload it cannot parse or write back.
    public static func droppingFront(of payload: [UInt8], before offset: Double, duration: Double) throws -> [UInt8] {
        guard duration > 0, offset > 0 else { return payload }
        let fraction = min(offset / duration, 1)
        return try write(GPMF.parse(payload).map { try trim($0, fraction: fraction, duration: duration) })
    }

    static func trim(_ item: GPMFItem, fraction: Double, duration: Double) throws -> GPMFItem {
        guard item.isNest else { return item }
        var out = item
        if item.key == "STRM", let last = item.children.indices.last, !item.children[last].isNest {
            let data = item.children[last]
            let n = data.repeatCount
            // Sample i lies at i / n of the span: the first kept is the first at or after the cut.
            let k = min(n, Int((fraction * Double(n) - 1e-9).rounded(.up)))
            guard k > 0 else { return item }
            var kept = data
            kept.repeatCount = n - k
            kept.data = Array(data.data.dropFirst(k * data.structSize))
            out.children[last] = kept
            let shiftUs = Double(k) * duration / Double(n) * 1e6
            // STMP (microseconds, MAX and HERO8 on) and TICK (milliseconds, HERO5 to HERO7) time
            // the first sample: telemetry-parser fits its rate between the first and last.
            for i in out.children.indices {
                switch out.children[i].key {
                case "STMP": out.children[i] = try stamp(out.children[i], movedBy: shiftUs)
                case "TICK": out.children[i] = try stamp(out.children[i], movedBy: shiftUs / 1000)
                default: break
                }
            }
        } else {
            out.children = try item.children.map { try trim($0, fraction: fraction, duration: duration) }
        }
        return out
    }

    /// A STMP or TICK (unsigned 64- or 32-bit, big-endian) moved on by `units` of its own.
    static func stamp(_ item: GPMFItem, movedBy units: Double) throws -> GPMFItem {
        let width: Int
        switch item.type {
        case UInt8(ascii: "J"): width = 8
        case UInt8(ascii: "L"): width = 4
        default: throw GPMFError("\(item.key) has type '\(String(format2hex: item.type))', not an unsigned 32- or 64-bit number")
        }
        guard item.data.count >= width else { throw GPMFError("\(item.key) holds \(item.data.count) bytes, \(width) needed") }
        let value = item.data.prefix(width).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let moved = value &+ UInt64(units.rounded())
        var out = item
        for b in 0..<width { out.data[b] = UInt8(truncatingIfNeeded: moved >> UInt64(8 * (width - 1 - b))) }
        return out
    }

    /// Items as GPMF bytes: each header, its data, zeros to the next 32-bit boundary; a nest's
    /// data is its children's bytes, its repeat count their length over its struct size.
    public static func write(_ items: [GPMFItem]) throws -> [UInt8] {
        var out: [UInt8] = []
        for item in items {
            var data = item.data
            var repeatCount = item.repeatCount
            if item.isNest {
                data = try write(item.children)
                let size = max(item.structSize, 1)
                guard data.count % size == 0 else { throw GPMFError("\(item.key): \(data.count) bytes is not a whole number of \(size)-byte structs") }
                repeatCount = data.count / size
            }
            guard repeatCount <= 0xFFFF else { throw GPMFError("\(item.key): \(repeatCount) repeats do not fit in 16 bits") }
            let k = item.key.bytes
            out += [k.0, k.1, k.2, k.3, item.type, UInt8(item.structSize), UInt8(repeatCount >> 8), UInt8(repeatCount & 0xFF)]
            out += data
            out += [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
        }
        return out
    }
}
