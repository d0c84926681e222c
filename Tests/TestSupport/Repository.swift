import Foundation

/// Where things are: the package root (found from this file's path), its fixtures, and the
/// built `lockstep` binary beside the test bundle.
public enum Repository {
    /// <root>/Tests/TestSupport/Repository.swift, three levels up.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static var fixtures: URL { root.appendingPathComponent("Fixtures") }
    /// The path of a fixture: "fg.mp4", "imu/pan.gcsv".
    public static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// The products folder the test bundle was built into.
    public static var products: URL {
        let xctest = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }
        return xctest?.bundleURL.deletingLastPathComponent() ?? Bundle.main.bundleURL
    }
    /// The built `lockstep`; LOCKSTEP_BINARY names another (to run the command-line tests against
    /// an older build, and see them fail).
    public static var binary: URL {
        if let other = ProcessInfo.processInfo.environment["LOCKSTEP_BINARY"], !other.isEmpty { return URL(fileURLWithPath: other) }
        return products.appendingPathComponent("lockstep")
    }

    /// A script by its name ("make-event-clips", "check-event-sync"), wherever scripts/ keeps it:
    /// bench/, fixtures/ or tools/.
    public static func script(_ name: String) -> String {
        let folders = ["fixtures", "tools", "bench", ""].map { root.appendingPathComponent("scripts/\($0)") }
        let found = folders.map { $0.appendingPathComponent(name) }.first { FileManager.default.fileExists(atPath: $0.path) }
        return (found ?? folders[0].appendingPathComponent(name)).path
    }

    /// The real media made elsewhere (`../shared/media` beside the checkout, or beside a worktree
    /// one level deeper; `$LOCKSTEP_SHARED_MEDIA` overrides). CI has it: a test that needs a file
    /// and finds none fails with this path in its message, it never skips.
    public static var sharedMedia: URL {
        if let path = ProcessInfo.processInfo.environment["LOCKSTEP_SHARED_MEDIA"] { return URL(fileURLWithPath: path) }
        let up = root.deletingLastPathComponent()
        let candidates = [up, up.deletingLastPathComponent()].map { $0.appendingPathComponent("shared/media") }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
    }

    /// A shared real file by its path under `shared/media` ("karma.mp4", "phones/hlg10-color-test.mp4").
    public static func shared(_ name: String) -> String { sharedMedia.appendingPathComponent(name).path }
}
