import CVectors

/// Shrinks an 8-bit plane by whole factors: each output sample is the rounded mean of a
/// `kx` x `ky` box of input samples. This is what motion analysis reads every frame (the
/// centre square 4x4 and the whole picture 5x5 at 1080p), where libswscale's area filter cost
/// a third of the decoder's time for the same averages.
///
/// How: per output row, the box's `ky` input rows are summed into 16-bit column sums (16
/// samples per SIMD step, row after row); then `kx` copies of that row, each one sample further on, are added
/// (so every position holds the sum of the `kx` columns starting there) and every `kx`-th
/// position is divided by the box's area, by a multiply and a shift. Sums of up to 257 samples
/// fit 16 bits, hence `kx * ky <= 257`. The scratch rows are made once (`ScratchMemory`): a call
/// allocates nothing. The 2x2 box, which a grid's cells also use (an exact half: `halve`, below),
/// takes a shorter way: one pass over its two rows, no scratch.
public final class BoxDownscale {
    public let kx: Int, ky: Int
    /// Output samples per row and rows.
    public let width: Int, height: Int
    /// The rows' sums and the boxes' sums, `width * kx` used, padded so that the SIMD steps
    /// may read and write past the end.
    private let columns: UnsafeMutablePointer<UInt16>
    private let boxes: UnsafeMutablePointer<UInt16>
    private let padded: Int
    /// Owns both rows.
    private let scratch = ScratchMemory()
    /// (sum * reciprocal) >> 32 is sum / area rounded down, exactly, for every 16-bit sum.
    private let reciprocal: UInt64
    private let half: UInt64

    /// The largest box area: its sums must fit 16 bits (255 * 257 = 65,535).
    public static let maxArea = 257

    public init(width: Int, height: Int, kx: Int, ky: Int) {
        precondition(width > 0 && height > 0 && kx > 0 && ky > 0 && kx * ky <= BoxDownscale.maxArea)
        self.width = width; self.height = height; self.kx = kx; self.ky = ky
        padded = width * kx + 16 + kx
        columns = scratch.buffer(count: padded)
        boxes = scratch.buffer(count: padded)
        let area = UInt64(kx * ky)
        reciprocal = ((1 << 32) + area - 1) / area
        half = area / 2
    }

    /// The factors that take `source` samples to `target` exactly, if whole and within
    /// `maxArea` (otherwise nil: the caller scales another way).
    public static func factors(from source: (width: Int, height: Int), to target: (width: Int, height: Int)) -> (kx: Int, ky: Int)? {
        guard target.width > 0, target.height > 0, source.width % target.width == 0, source.height % target.height == 0 else { return nil }
        let kx = source.width / target.width, ky = source.height / target.height
        return kx * ky <= maxArea ? (kx, ky) : nil
    }

    /// Where `add` writes: the output picture, and the next output row and source row in it.
    private var out: UnsafeMutablePointer<UInt8>?
    private var outStride = 0
    private var outRow = 0
    private var rowInBox = 0

    /// Reads `width * kx` x `height * ky` samples from `source` (rows `sourceStride` apart)
    /// and writes `width` x `height` samples to `out` (rows `outStride` apart).
    public func scale(_ source: UnsafePointer<UInt8>, sourceStride: Int, into out: UnsafeMutablePointer<UInt8>, outStride: Int) {
        if kx == 2 && ky == 2 {
            return Self.halve(source, sourceStride: sourceStride, into: Plane(base: out, stride: outStride, width: width, height: height))
        }
        begin(into: out, outStride: outStride)
        for y in 0..<(height * ky) { add(row: source + y * sourceStride) }
    }

    /// Starts a picture: the rows given to `add` after this are its source, top to bottom.
    /// (Two pictures of different boxes can so be made from one reading of the source, each
    /// row read from memory once.)
    public func begin(into out: UnsafeMutablePointer<UInt8>, outStride: Int) {
        self.out = out; self.outStride = outStride; outRow = 0; rowInBox = 0
    }

    /// The next source row (its first `width * kx` samples are read). Every `ky`-th row
    /// completes an output row; rows after the picture's last are ignored.
    public func add(row line: UnsafePointer<UInt8>) {
        guard let out, outRow < height else { return }
        let n = width * kx, vectors = n / 16, first = rowInBox == 0
        // Column sums of the box's rows, a row at a time (the source read in order, the sums
        // staying in the L1 cache).
        if first {
            for v in 0..<vectors {
                let samples = UnsafeRawPointer(line + 16 * v).loadUnaligned(as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(columns + 16 * v).storeBytes(of: SIMD16<UInt16>(truncatingIfNeeded: samples), as: SIMD16<UInt16>.self)
            }
            for x in (16 * vectors)..<n { columns[x] = UInt16(line[x]) }
        } else {
            for v in 0..<vectors {
                let samples = UnsafeRawPointer(line + 16 * v).loadUnaligned(as: SIMD16<UInt8>.self)
                let sums = UnsafeMutableRawPointer(columns + 16 * v)
                sums.storeBytes(of: SIMD16<UInt16>(truncatingIfNeeded: samples) &+ sums.loadUnaligned(as: SIMD16<UInt16>.self), as: SIMD16<UInt16>.self)
            }
            for x in (16 * vectors)..<n { columns[x] &+= UInt16(line[x]) }
        }
        rowInBox += 1
        guard rowInBox == ky else { return }
        rowInBox = 0
        // Sums of kx neighbouring columns, at every position; the boxes start at multiples of kx.
        var x = 0
        while x < n {
            var s = UnsafeRawPointer(columns + x).loadUnaligned(as: SIMD16<UInt16>.self)
            for t in 1..<kx { s &+= UnsafeRawPointer(columns + x + t).loadUnaligned(as: SIMD16<UInt16>.self) }
            UnsafeMutableRawPointer(boxes + x).storeBytes(of: s, as: SIMD16<UInt16>.self)
            x += 16
        }
        let row = out + outRow * outStride
        for i in 0..<width {
            row[i] = UInt8(truncatingIfNeeded: ((UInt64(boxes[i * kx]) + half) &* reciprocal) >> 32)
        }
        outRow += 1
    }
}

/// The 2x2 box, a whole plane at a time: what a grid's cells use to conform a picture of exactly
/// twice their width and height (`ColorFitter`, quad of 1080p cameras on a 1080p canvas), and
/// what `scale` does for kx = ky = 2. Each output sample is (a + b + c + d + 2) >> 2 of its box,
/// the rounded mean as every box here is (and as libswscale's area filter gives for an exact
/// half). One pass over the two source rows of each output row, no column sums and no scratch:
/// a horizontal pair of samples is one word of twice the sample's size, so a SIMD load of 16
/// words gives 16 pairs, and (word & low) + (word >> bits) is each pair's sum whichever byte
/// order the words have.
extension BoxDownscale {
    /// `out.width` x `out.height` samples from `2 out.width` x `2 out.height` source samples
    /// (rows `sourceStride` samples apart). 8-bit planes.
    /// `avx2`: the rows' blocks in AVX2 C (`cvec_halve_row8_avx2`), the same bytes; tests pass
    /// false to compare the two.
    public static func halve(
        _ source: UnsafePointer<UInt8>, sourceStride: Int, into out: Plane, avx2: Bool = ColorConvertKernel.processorHasAVX2
    ) {
        halve(source, sourceStride, rows: out.height, count: out.width, out.row, words: UInt16.self, blocks: avx2 ? cvec_halve_row8_avx2 : nil)
    }

    /// The same for 16-bit planes (10- or 12-bit values: the HDR working signal's).
    public static func halve(
        _ source: UnsafePointer<UInt16>, sourceStride: Int, into out: Plane16, avx2: Bool = ColorConvertKernel.processorHasAVX2
    ) {
        halve(source, sourceStride, rows: out.height, count: out.width, out.row, words: UInt32.self, blocks: avx2 ? cvec_halve_row16_avx2 : nil)
    }

    /// Each output row: the AVX2 `blocks` first where given (they return the samples done),
    /// then `halveRow` for the rest.
    @inline(__always)
    private static func halve<Sample, Word>(
        _ source: UnsafePointer<Sample>, _ sourceStride: Int, rows: Int, count: Int, _ row: (Int) -> UnsafeMutablePointer<Sample>,
        words: Word.Type, blocks: ((UnsafePointer<Sample>, UnsafePointer<Sample>, Int32, UnsafeMutablePointer<Sample>) -> Int32)?
    ) where Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar, Word: FixedWidthInteger & UnsignedInteger & SIMDScalar {
        for j in 0..<rows {
            let a = source + 2 * j * sourceStride, o = row(j)
            let done = blocks.map { Int($0(a, a + sourceStride, Int32(count), o)) } ?? 0
            halveRow(a + 2 * done, a + sourceStride + 2 * done, count: count - done, into: o + done, words: words)
        }
    }

    /// One output row of `count` samples from source rows `a` and `b` (2 `count` samples each
    /// read, no more). `Word` holds two samples, and four samples' sum.
    @inline(__always)
    static func halveRow<Sample, Word>(
        _ a: UnsafePointer<Sample>, _ b: UnsafePointer<Sample>, count n: Int, into out: UnsafeMutablePointer<Sample>, words: Word.Type
    ) where Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar, Word: FixedWidthInteger & UnsignedInteger & SIMDScalar {
        let low = SIMD16<Word>(repeating: Word(Sample.max)), bits = Word(Sample.bitWidth)
        var i = 0
        while i + 16 <= n {
            let p = UnsafeRawPointer(a + 2 * i).loadUnaligned(as: SIMD16<Word>.self)
            let q = UnsafeRawPointer(b + 2 * i).loadUnaligned(as: SIMD16<Word>.self)
            let sums = (p & low) &+ (p &>> bits) &+ (q & low) &+ (q &>> bits) &+ 2
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD16<Sample>(truncatingIfNeeded: sums &>> 2), as: SIMD16<Sample>.self)
            i += 16
        }
        while i < n {
            let sum = Word(a[2 * i]) + Word(a[2 * i + 1]) + Word(b[2 * i]) + Word(b[2 * i + 1]) + 2
            out[i] = Sample(truncatingIfNeeded: sum >> 2)
            i += 1
        }
    }
}
