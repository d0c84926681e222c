/// Why the watchdog stopped a job (`Watchdog`): a stage busy with one thing past the timeout, or
/// nothing moving at all for that long. `seconds` is the timeout as the user gave it ("30", "2.5").
public enum StallError: JobFailure, Equatable {
    case stageStuck(stage: String, seconds: String, activity: String)
    /// `stages` is each stage's name and what it was doing, in order.
    case nothingMoved(seconds: String, stages: [String])

    public var description: String {
        switch self {
        case .stageStuck(let stage, let seconds, let activity): "\(stage) made no progress for \(seconds) s while \(activity); stopped"
        case .nothingMoved(let seconds, let stages): "nothing moved for \(seconds) s (\(stages.joined(separator: ", "))); stopped"
        }
    }
}
