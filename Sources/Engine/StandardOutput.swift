import CStandardOutput
import Glibc

/// What a command printed (reports, ids, `align --as-options`, `probe`) goes through C's buffered
/// standard output, whose write errors `print` never reports: `lockstep probe clip.mp4 >
/// /dev/full` exited 0, and `align --as-options` on a full disk left an empty options file that
/// the next composite read as "no offsets". `LockstepCommand.main` asks this before the process
/// ends, whatever the command.
public enum StandardOutput {
    /// Puts a stream of its own in C's `stdout` (CStandardOutput: descriptor 1 as before) that
    /// keeps the errno of the write that failed. A line-buffered stream (a terminal, or `stdbuf
    /// -oL` as a log wrapper gives it) writes each line as it is printed, so the errno of a failed
    /// write was overwritten long before the end and the line said "(a write failed)" instead of
    /// the cause. Buffered as C would: by line on a terminal or under `stdbuf -oL`/`-o0`
    /// (`_STDBUF_O`, which only C's own stream reads), else in blocks. Call once, before anything
    /// is printed.
    public static func install() {
        let wrapper = getenv("_STDBUF_O").map { String(cString: $0) }
        let byLine = isatty(1) != 0 || wrapper == "L" || wrapper == "0"
        _ = cso_install(byLine ? 1 : 0)
    }

    /// The line that says the output was not all written, or nil when it was: the last of it is
    /// flushed here, and a write that failed earlier (C's error flag) counts too, with its cause.
    public static func failure() -> String? {
        var cause: Int32 = 0
        guard cso_finish(&cause) != 0 else { return nil }
        let why = cause != 0 ? String(cString: strerror(cause)) : "a write failed"
        return "standard output: cannot be written (\(why)); what the command printed is incomplete."
    }
}
