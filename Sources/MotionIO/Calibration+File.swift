import Foundation
import Motion

/// Profiles on disk; the decoding and its checks are Motion's (`Calibration.decode`, pure).
extension Calibration {
    public static func load(_ url: URL) throws -> Calibration {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CalibrationError("\(url.path): cannot be read (\(error.localizedDescription))")
        }
        return try decode(data, source: url.path)
    }

    /// Written to a temporary file and renamed over `url`, so a failure leaves what was there.
    public func save(_ url: URL) throws {
        try encoded().write(to: url, options: .atomic)
    }
}
