import Foundation
import Motion

/// Profiles on disk; the decoding and its checks are Motion's (`Calibration.decode`, pure).
extension Calibration {
    public static func load(_ url: URL) throws -> Calibration {
        // Read only a regular file of profile size: /dev/zero was read until memory ran out,
        // a FIFO blocked the command before its signal handling started.
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
            throw CalibrationError("\(url.path): not a calibration profile (not a regular file)")
        }
        if let size = (attributes[.size] as? NSNumber)?.int64Value, size > maximumFileSize {
            throw CalibrationError("\(url.path): not a calibration profile (\(size) bytes; a profile is a few hundred)")
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
