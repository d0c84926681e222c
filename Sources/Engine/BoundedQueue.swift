import Foundation
import Synchronization

/// A blocking FIFO with a fixed capacity, for handing frames between threads. `close()` wakes
/// everyone: pushes then fail and pops drain what is left, then return nil.
///
/// Elements are handed over, not shared: `push` takes a `sending` value (the pusher keeps no
/// reference the compiler can see) and `pop` gives it out as `sending`. That is what makes a
/// queue of non-Sendable frames safe to share, hence the unchecked conformance: every stored
/// property is guarded by `condition`.
package final class BoundedQueue<Element>: @unchecked Sendable {
    private var items: [Element?]
    private var head = 0
    private var count = 0
    private let condition = NSCondition()
    private var isClosed = false

    package init(capacity: Int) { items = Array(repeating: nil, count: capacity) }

    /// False if the queue was closed (the element was not taken).
    @discardableResult
    package func push(_ element: sending Element) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while count == items.count && !isClosed { condition.wait() }
        guard !isClosed else { return false }
        items[(head + count) % items.count] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// Nil once the queue is closed and empty.
    package func pop() -> sending Element? {
        condition.lock(); defer { condition.unlock() }
        while count == 0 && !isClosed { condition.wait() }
        guard count > 0 else { return nil }
        // Taken out of the ring under the lock, nothing else refers to it any more.
        nonisolated(unsafe) let e = items[head]
        items[head] = nil
        head = (head + 1) % items.count
        count -= 1
        condition.broadcast()
        return e
    }

    package func close() {
        condition.lock(); isClosed = true; condition.broadcast(); condition.unlock()
    }

    /// Whether `close()` was called (read under the lock).
    package var closed: Bool { condition.lock(); defer { condition.unlock() }; return isClosed }
}

/// The first failure of any stage, kept for the caller; later ones are consequences.
package final class FailureBox: Sendable {
    private let stored = Mutex<(any Error)?>(nil)
    package init() {}
    package var error: (any Error)? { stored.withLock { $0 } }
    /// True if this was the first failure.
    @discardableResult
    package func record(_ error: any Error) -> Bool {
        stored.withLock { stored in
            guard stored == nil else { return false }
            stored = error
            return true
        }
    }
}
