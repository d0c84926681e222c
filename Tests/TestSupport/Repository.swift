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
    /// The built `lockstep`.
    public static var binary: URL { products.appendingPathComponent("lockstep") }
}
