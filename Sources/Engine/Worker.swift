import Dispatch
import Foundation
import Synchronization

/// A thread of the engine's, for the library's jobs: named (as `top -H` and a debugger show it),
/// started at once, waited for with `join()`. The jobs make no thread, queue or sleep of their
/// own (issue 43): they use this, `WorkGroup`, `Parallel` and `Alarm`.
package final class Worker: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    /// Runs `body` on a new thread called `name`; `stackSize` bytes of stack (the jobs' threads
    /// hold little on theirs: 1 MB, as the writer's and the lanes').
    package init(name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
        let t = Thread { [finished] in
            defer { finished.signal() }
            body()
        }
        t.name = name
        t.stackSize = stackSize
        t.start()
    }

    /// Waits until the body has returned. Called once.
    package func join() { finished.wait() }

    /// Runs `body` on a thread nobody waits for: work that may block for good and is given up
    /// rather than waited for (an open of a FIFO nobody writes to, `CompositeJob.openReaders`).
    package static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        _ = Worker(name: name, body)
    }
}

/// Pieces of work run at once, on the engine's threads.
package enum Parallel {
    /// Runs `body(0..<count)` at once and returns when every piece has.
    package static func forEach(_ count: Int, _ body: @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    }
}

/// Batches of parallel work started in the background and waited for later (`FrameMotion`
/// measures one batch of pictures while the next is decoded).
package final class WorkGroup: Sendable {
    private let group = DispatchGroup()

    package init() {}

    /// Starts `body(0..<count)` in the background, the pieces at once.
    package func start(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        DispatchQueue.global().async(group: group) { DispatchQueue.concurrentPerform(iterations: count, execute: body) }
    }

    /// Waits until every batch started has finished.
    package func wait() { group.wait() }
}

/// A wait of at most some seconds that `ring()` ends at once, from any thread: a poll loop (the
/// scale-out's wait on squeue) that a stop must not sit out. Once rung, it stays rung.
package final class Alarm: Sendable {
    private let bell = DispatchSemaphore(value: 0)
    private let rung = Mutex(false)

    package init() {}

    package func ring() {
        let first = rung.withLock { r in
            defer { r = true }
            return !r
        }
        if first { bell.signal() }
    }

    package var isRung: Bool { rung.withLock { $0 } }

    /// Waits `seconds`, or less if rung (then or before); whether it was rung.
    @discardableResult
    package func wait(_ seconds: Double) -> Bool {
        if isRung { return true }
        if bell.wait(timeout: .now() + max(0, seconds)) == .success {
            bell.signal()  // rung stays rung for the next wait
            return true
        }
        return isRung
    }
}
