import CAVFilter

/// libavfilter, opened the first time a deinterlacer is made and kept for the process's life
/// (Sources/CAVFilter/shim.h says why it is not linked). Every function of `api` is set: the
/// loader fails on the first symbol it cannot find.
enum AVFilterLibrary {
    private static let loaded: Result<LockstepAVFilter, MediaError> = {
        var api = LockstepAVFilter()
        if let failure = lockstep_avfilter_open(&api) {
            return .failure(MediaError("deinterlacing needs FFmpeg's libavfilter: \(String(cString: failure))"))
        }
        return .success(api)
    }()

    /// The functions, or why they could not be loaded (the file or a symbol missing).
    static func api() throws(MediaError) -> LockstepAVFilter { try loaded.get() }
}
