// C's `stdout` is a global the compiler cannot prove safe; it is read only after the command's
// work, by the one thread left.
@preconcurrency import Glibc

/// What a command printed (reports, ids, `align --as-options`, `probe`) goes through C's buffered
/// standard output, whose write errors `print` never reports: `lockstep probe clip.mp4 >
/// /dev/full` exited 0, and `align --as-options` on a full disk left an empty options file that
/// the next composite read as "no offsets". `LockstepCommand.main` asks this before the process
/// ends, whatever the command.
public enum StandardOutput {
    /// The line that says the output was not all written, or nil when it was: the last of it is
    /// flushed here, and a write that failed earlier (C's error flag) counts too.
    public static func failure() -> String? {
        errno = 0
        let flushed = fflush(stdout) == 0
        let cause = errno
        guard !flushed || ferror(stdout) != 0 else { return nil }
        let why = cause != 0 ? String(cString: strerror(cause)) : "a write failed"
        return "standard output: cannot be written (\(why)); what the command printed is incomplete."
    }
}
