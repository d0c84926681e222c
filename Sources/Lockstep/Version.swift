import IIO

/// What `lockstep --version` prints: Lockstep's version and the C libraries it runs with.
public enum LockstepVersion {
    /// Bumped by hand at a release; "-dev" between releases.
    public static let number = "0.26.0-dev"

    public static var text: String {
        "lockstep \(number)\nFFmpeg: \(FFmpegVersions.description)\nSQLite: \(SQLiteVersion.description)\nlibiio: \(LibIIOVersion.description)"
    }
}
