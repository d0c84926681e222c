import ArgumentParser
import Foundation
import Lockstep

/// How a command ends when it does not succeed, in the command's words: what happened, never a
/// number (`ExitStatus` gives the number).
enum CommandEnding: Error {
    /// The command printed its report, and the report says something is wrong (verify's
    /// violations, `--coded` checks that failed, a variant lost): nothing more is printed.
    case reported
    /// The file cannot be read at all (verify, probe): the error's line.
    case unreadable(any Error)
    /// Any other failure, said by the error's own line.
    case failed(any Error)
    /// Stopped by `signal` before finishing: the line to print.
    case stopped(String, signal: Int32)
    /// `imu record` ended other than as asked (its closing line is printed already).
    case recording(RecorderStateMachine.Stop)
}

/// The one place an exit status is decided. The library throws or returns what happened; the
/// commands say it (`CommandEnding`) and never pick a number; `LockstepCommand.main` and the
/// stop signals (`StopSignals.install`) end the process with what this says:
/// - 0: success (also `imu record` stopped by Ctrl-C, `--duration` or its sample count);
/// - 1: a failure (a job's error, verify's violations, a lost variant, a failed recording);
/// - 2: a file `verify` or `probe` cannot read;
/// - 64: a bad option (ArgumentParser's usage errors, and `thumbnail --at` past the clip);
/// - 128 + N: stopped by signal N (Ctrl-C 130, SIGTERM 143, SIGHUP 129).
enum ExitStatus {
    static let failure: Int32 = 1
    static let unreadable: Int32 = 2
    /// EX_USAGE, as ArgumentParser's own validation errors.
    static let usage: Int32 = 64

    @Sendable static func stopped(by signal: Int32) -> Int32 { 128 + signal }

    /// The status for `error` and the line printed after "Error: " (nil: none, a report said it);
    /// nil for an error that is ArgumentParser's to describe (its usage errors, `--help`).
    static func of(_ error: any Error) -> (status: Int32, line: String?)? {
        switch error {
        case let ending as CommandEnding:
            switch ending {
            case .reported: return (failure, nil)
            case .unreadable(let e): return (unreadable, "\(e)")
            case .failed(let e): return (failure, "\(e)")
            case .stopped(let line, let signal): return (stopped(by: signal), line)
            case .recording(let stop): return (of(stop), nil)
            }
        case let e as any JobFailure: return (failure, e.description)
        case let e as ThumbnailOptionError: return (usage, e.description)
        default: return nil
        }
    }

    /// `imu record`: 0 where the end was asked for; 128 + the signal for SIGTERM and SIGHUP
    /// (something other than its user ended it); 1 for a failure.
    static func of(_ stop: RecorderStateMachine.Stop) -> Int32 {
        switch stop {
        case .interrupted, .durationReached, .sampleLimitReached: 0
        case .terminated: stopped(by: SIGTERM)
        case .hungUp: stopped(by: SIGHUP)
        case .failed: failure
        }
    }
}
