import ArgumentParser
import Foundation
import Lockstep

/// The signal that stopped the job, for the exit status (128 + signal).
func lastStopSignal() -> Int32? { StopSignals.first }

/// A stopped job's end: its line, and the status shells give a command a signal ended
/// (128 + the signal; SIGINT's 130 when none was heard).
func cancelledExit() -> ExitCode {
    sayCancelled()
    return ExitCode(128 + (lastStopSignal() ?? SIGINT))
}

/// Runs `body` with the stop signals turned into a call to `cancel`, so the job can remove its
/// temporary file and say so, instead of dying half-way. Signals are heard on a queue of their
/// own (no Swift runs in signal context), installed once for the whole process.
///
/// Once a stop signal was heard, whatever the job throws on its way out is the cancellation: a
/// job stopped while opening a FIFO with no writer threw its reader's "PATH: cancelled" and
/// exited 1 instead of 128 + the signal (concat, reverse). A job that returns has succeeded,
/// whatever signal came after.
func withCancellation<T>(grace: Double = 10, stuck: String? = nil, _ cancel: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) throws -> T {
    let stuck = stuck ?? "cancelled (the job did not stop within \(Int(grace)) s of the signal)"
    do {
        return try StopSignals.running(grace: grace, stuck: stuck, cancel, body)
    } catch where lastStopSignal() != nil {
        throw JobError.cancelled
    }
}

func withCancellation<T>(grace: Double = 10, stuck: String? = nil, _ cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) throws -> T {
    try withCancellation(grace: grace, stuck: stuck, { (_: Int32) in cancel() }, body)
}
