import Foundation
import Media

/// The output is written to a hidden temporary file in the same folder and renamed over the
/// output only when complete, so a failure never leaves a half-written file under the output's
/// name and never touches a file the user already had there.
enum OutputPath {
    static let containers = ["mp4": "mp4", "m4v": "mp4", "mov": "mov"]

    static func container(for path: String) -> String {
        containers[(path as NSString).pathExtension.lowercased()] ?? "mp4"
    }

    static func temporary(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent).lockstep-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func commit(_ temporary: String, to path: String) throws {
        if rename(temporary, path) != 0 {
            throw MediaError("cannot move the finished file into place: \(String(cString: strerror(errno)))", path: path)
        }
    }
}
