/// The scratch rows and tables of one kernel: each buffer allocated and zeroed when the kernel
/// is made, all freed together when the kernel goes. The kernel keeps plain pointers into it
/// for its hot loops (nothing allocated per frame, no bounds checks) and frees nothing by hand:
/// a buffer added to a kernel cannot be forgotten in its `deinit`.
///
/// Only for plain values (`BitwiseCopyable`: numbers, pointers, SIMD vectors), which need no
/// deinitialisation. Not thread-safe while buffers are being made (a kernel makes them in its
/// `init`); the memory itself belongs to whoever uses the pointers.
final class ScratchMemory {
    private var buffers: [UnsafeMutableRawPointer] = []

    /// `count` values of `T`, each `value` (zero by default), valid as long as this owner lives.
    func buffer<T: BitwiseCopyable>(_ type: T.Type = T.self, count: Int, value: T) -> UnsafeMutablePointer<T> {
        precondition(count >= 0)
        let p = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
        p.initialize(repeating: value, count: max(count, 1))
        buffers.append(UnsafeMutableRawPointer(p))
        return p
    }

    func buffer<T: BitwiseCopyable & Numeric>(_ type: T.Type = T.self, count: Int) -> UnsafeMutablePointer<T> {
        buffer(type, count: count, value: 0)
    }

    /// How many buffers this owner holds (for tests).
    var count: Int { buffers.count }

    deinit { for b in buffers { b.deallocate() } }
}
