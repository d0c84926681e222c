import Atomics
import CFFmpeg

/// Raised once, from any thread (a signal handler included: raising is one lock-free atomic
/// store), to make every FFmpeg call of the readers holding it give up with a cancellation error:
/// an open blocked on a FIFO with no writer, a read from a stalled pipe, a slow network source.
/// The job owns it and hands it to each `MovieReader`.
public final class CancellationToken: Sendable {
    private let raised = ManagedAtomic(false)

    public init() {}

    public func cancel() { raised.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { raised.load(ordering: .relaxed) }

    /// FFmpeg's AVIOInterruptCB: polled by blocking calls, non-zero makes them return AVERROR_EXIT.
    /// The opaque pointer is an unretained token: whoever installs it keeps the token alive.
    static let interruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
        guard let opaque else { return 0 }
        return Unmanaged<CancellationToken>.fromOpaque(opaque).takeUnretainedValue().isCancelled ? 1 : 0
    }

    var interrupt: AVIOInterruptCB {
        AVIOInterruptCB(callback: CancellationToken.interruptCallback, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
