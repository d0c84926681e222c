import CVectors

/// How much each rendered picture (before encoding) differs from the one rendered before it:
/// the mean absolute luma difference over every 4th pixel of every 4th row. It goes into the
/// frame's provenance ("change"), so `verify` can tell a still source, whose pictures barely
/// change, from a picture lost between rendering and the file.
///
/// One instance per render, used on one thread. The previous subsample lives in a buffer
/// allocated once: measuring allocates nothing.
public final class RenderedChange {
    public static let step = 4
    private let width: Int, height: Int
    private let previous: UnsafeMutableBufferPointer<UInt8>
    private var hasPrevious = false
    /// Whether the rows' blocks of thirty-two samples run in C (RenderedChange.h): the same total.
    let avx2: Bool

    /// `width` × `height`: the canvas every measured picture has.
    public convenience init(width: Int, height: Int) { self.init(width: width, height: height, avx2: ColorConvertKernel.processorHasAVX2) }

    /// `avx2: false`: the Swift loop alone (tests compare the two).
    init(width: Int, height: Int, avx2: Bool) {
        self.width = width; self.height = height; self.avx2 = avx2
        let count = ((width + Self.step - 1) / Self.step) * ((height + Self.step - 1) / Self.step)
        previous = .allocate(capacity: max(count, 1))
        previous.initialize(repeating: 0)
    }
    deinit { previous.deallocate() }

    /// The difference from the picture measured before (nil for the first, or a picture of
    /// another size); `image` becomes the one the next call compares with.
    public func measure(_ image: YUVImage) -> Double? {
        guard image.width == width, image.height == height else { hasPrevious = false; return nil }
        // Every 4th pixel is the low byte of a little-endian 32-bit word: whole words load as
        // vectors (a strided byte loop does not); the last samples, whose word would reach past
        // the row's last pixel, are read one by one.
        let words = width / Self.step, perRow = (width + Self.step - 1) / Self.step
        var total = 0, n = 0
        for y in stride(from: 0, to: height, by: Self.step) {
            let row = image.y.row(y)
            let previousRow = previous.baseAddress! + n
            let bytes = UnsafeRawPointer(row)
            var done = 0
            if avx2 {
                var sum: UInt64 = 0
                done = Int(cvec_rendered_change_row_avx2(row, previousRow, Int32(words), &sum))
                total += Int(sum)
            }
            for i in done..<words {
                let l = UInt8(truncatingIfNeeded: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i * Self.step, as: UInt32.self)))
                total += Int(l > previousRow[i] ? l - previousRow[i] : previousRow[i] - l)
                previousRow[i] = l
            }
            for i in words..<perRow {
                let l = row[i * Self.step]
                total += abs(Int(l) - Int(previousRow[i]))
                previousRow[i] = l
            }
            n += perRow
        }
        defer { hasPrevious = true }
        return hasPrevious && n > 0 ? Double(total) / Double(n) : nil
    }

    /// Forget the previous picture (the next one starts afresh).
    public func reset() { hasPrevious = false }
}
