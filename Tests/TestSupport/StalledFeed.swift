import Foundation

/// An input that stops delivering (GPUImage #744, VidClips' frozen writer): a shell writes the
/// first half of `source` into `fifo`, then keeps the pipe open and silent for 30 s. Used by
/// the stall tests of composite and concat; the caller terminates it.
public enum StalledFeed {
    public static func start(halfOf source: String, into fifo: String) throws -> Process {
        let size = try FileManager.default.attributesOfItem(atPath: source)[.size] as! Int
        let feeder = Process()
        feeder.executableURL = URL(fileURLWithPath: "/bin/sh")
        feeder.arguments = ["-c", "{ head -c \(size / 2) '\(source)'; sleep 30; } > '\(fifo)'"]
        try feeder.run()
        return feeder
    }
}
