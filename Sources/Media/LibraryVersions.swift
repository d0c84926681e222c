import CFFmpeg

/// The FFmpeg libraries this process runs with (not those it was built against): what a bug
/// report needs, printed by `lockstep --version`.
public enum FFmpegVersions {
    public static var description: String {
        func v(_ n: UInt32) -> String { "\(n >> 16).\((n >> 8) & 0xff).\(n & 0xff)" }
        return "libavformat \(v(avformat_version())), libavcodec \(v(avcodec_version())), libavutil \(v(avutil_version())), "
            + "libswscale \(v(swscale_version())), libswresample \(v(swresample_version()))"
    }
}
