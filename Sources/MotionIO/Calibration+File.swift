import Foundation
import Motion

/// Profiles on disk; the decoding and its checks are Motion's (`Calibration.decode`, pure).
extension Calibration {
    public static func load(_ url: URL) throws -> Calibration {
        // Read only a regular file of profile size: /dev/zero was read until memory ran out,
        // a FIFO blocked the command before its signal handling started. stat, not
        // FileManager's attributes: those are the link's own for a symbolic link (a profile
        // linked from a shared folder was "not a regular file"), and nil for a missing file
        // (which said "not a regular file" too, instead of why it cannot be read).
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw CalibrationError("\(url.path): cannot be read (\(String(cString: strerror(errno))))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CalibrationError("\(url.path): not a calibration profile (not a regular file)")
        }
        if Int64(info.st_size) > maximumFileSize {
            throw CalibrationError("\(url.path): not a calibration profile (\(info.st_size) bytes; a profile is a few hundred)")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CalibrationError("\(url.path): cannot be read (\(error.localizedDescription))")
        }
        return try decode(data, source: url.path)
    }

    /// Far above any profile (a few hundred bytes), far below what would hurt to read.
    static let maximumFileSize: Int64 = 1 << 20

    /// Written to a temporary file and renamed over `url`, so a failure leaves what was there.
    public func save(_ url: URL) throws {
        try encoded().write(to: url, options: .atomic)
    }
}
