import ArgumentParser
import Foundation
import Lockstep

/// `runJob`'s part: runs `body` with the stop signals turned into a call to `cancel`, so the job
/// can remove its temporary file and say so, instead of dying half-way. Signals are heard on a queue of their
/// own (no Swift runs in signal context), installed once for the whole process.
///
/// The one place a command's job ends: `finish` first, however it ends (a progress line is
/// cleared before any message). A stopped job ends the command with "Error: " + `cancelledLine`
/// and 128 + the first signal (SIGINT's 130 when the job stopped by itself with
/// `JobError.cancelled`); once a stop signal was heard, whatever the job throws on its way out is
/// the cancellation (a job stopped while opening a FIFO with no writer threw its reader's "PATH:
/// cancelled" and exited 1 instead of 128 + the signal: concat, reverse). Any other error goes on
/// to ArgumentParser's one line and exit 1. A job that returns has succeeded, whatever signal
/// came after.
private func withCancellation<T>(
    grace: Double = 10, stuck: String? = nil, cancelledLine: String = "cancelled", finish: () -> Void = {},
    _ cancel: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T
) throws -> T {
    let stuck = stuck ?? "cancelled (the job did not stop within \(Int(grace)) s of the signal)"
    do {
        let result = try StopSignals.running(grace: grace, stuck: stuck, cancel, body)
        finish()
        return result
    } catch {
        finish()
        guard StopSignals.first != nil || (error as? JobError) == .cancelled else { throw error }
        throw CommandEnding.stopped(cancelledLine, signal: StopSignals.first ?? SIGINT)
    }
}

/// Runs a job the one way every command does: on this thread, with its progress on a line of the
/// terminal (unless `quiet`, or stderr is not a terminal), its notices as `notice` says, and the
/// stop signals turned into its `cancel()` (or into `stop`, for the jobs whose ending depends on
/// the signal: `imu record`, `imu serve`). A cancelled job exits 128 + the signal.
func runJob<J: Job>(
    _: J.Type, _ options: J.Options, quiet: Bool = true, unit: ProgressUnit = .frames, notice: (@Sendable (String) -> Void)? = nil,
    grace: Double = 10, stuck: String? = nil, cancelledLine: String = "cancelled",
    stop: ((J) -> @Sendable (Int32) -> Void)? = nil
) throws -> J.Outcome {
    let meter = ProgressMeter(enabled: !quiet && isatty(STDERR_FILENO) == 1, unit: unit)
    let progress: @Sendable (Int64, Int64?) -> Void = { done, expected in meter.update(done: done, total: expected) }
    let job = J(options: options, events: JobEvents(progress: progress, notice: notice))
    let cancel: @Sendable (Int32) -> Void
    if let stop { cancel = stop(job) } else { cancel = { _ in job.cancel() } }
    return try withCancellation(grace: grace, stuck: stuck, cancelledLine: cancelledLine, finish: meter.finish, cancel) { try job.run() }
}

/// Runs a job that writes a movie (composite, snake, filter and its variants, concat, reverse)
/// as `runJob` does, with its notes about the output (`JobEvents.notice`: telemetry not kept,
/// `--keep-frames`' retiming, HDR tone-mapped, ...) held until the job has returned and printed
/// then, before the command's summary: the one place such notes are printed. A job that is
/// stopped or fails wrote no output and ends with its one error line, not with notes about it
/// (reverse said "telemetry track is not kept" at its start, then "Error: cancelled").
/// `earlier`: notes the command made before the job started (printed first, in order).
func runOutputJob<J: Job>(_ type: J.Type, _ options: J.Options, quiet: Bool, earlier: [String] = []) throws -> J.Outcome {
    let held = HeldNotes(earlier)
    let outcome = try runJob(type, options, quiet: quiet, notice: held.add)
    for line in held.lines { printNote(line) }
    return outcome
}

/// A job's notice on stderr: "note: LINE".
@Sendable func printNote(_ line: String) { FileHandle.standardError.write(Data("note: \(line)\n".utf8)) }

/// A job's warning on stderr: "warning: LINE".
@Sendable func printWarning(_ line: String) { FileHandle.standardError.write(Data("warning: \(line)\n".utf8)) }
