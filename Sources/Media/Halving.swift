/// How a conformer shrinks a picture to exactly half its width and height when nothing else
/// about it changes (format, range, colours, orientation): the job's choice (`Conformer.halving`).
public enum Halving: Equatable, Sendable {
    /// libswscale's bicubic filter, as at every other ratio: what every command did before.
    case bicubic
    /// Each plane's 2x2 rounded means (`BoxDownscale.halve`): a grid's cells (four 1080p cameras
    /// on a 1080p canvas). The right filter for an exact half (no ringing, no aliasing worse
    /// than bicubic's at this ratio), at a small part of swscale's cost: swscale's bicubic was
    /// 8.8% of the quad job's CPU.
    case box
}

/// The path a conformer's scaling took for its last picture, and why it was not the box.
public enum ScalePath: Equatable, Sendable {
    case box
    case swscale(Reason)

    public enum Reason: String, Sendable {
        case bicubicAskedFor = "the job keeps swscale's bicubic"
        case turned = "the picture is turned"
        case colours = "its colours are converted"
        case alpha = "it is scaled with its alpha"
        case format = "its pixel format changes"
        case range = "its range changes (full to video)"
        case notAnExactHalf = "it is not shrunk by exactly half to an even size"
    }
}
