import CFFmpeg
import Foundation

/// FFmpeg's own log lines would break the promise of one clear line per error: Lockstep reports
/// failures itself, with FFmpeg's message. `LOCKSTEP_FFMPEG_LOG=info` (or debug, warning...)
/// brings them back for debugging.
enum FFmpegLog {
    static let configured: Void = {
        let levels: [String: Int32] = [
            "quiet": AV_LOG_QUIET, "panic": AV_LOG_PANIC, "fatal": AV_LOG_FATAL,
            "error": AV_LOG_ERROR, "warning": AV_LOG_WARNING, "info": AV_LOG_INFO,
            "verbose": AV_LOG_VERBOSE, "debug": AV_LOG_DEBUG
        ]
        let wanted = ProcessInfo.processInfo.environment["LOCKSTEP_FFMPEG_LOG"].flatMap { levels[$0.lowercased()] }
        av_log_set_level(wanted ?? AV_LOG_QUIET)
    }()
}
