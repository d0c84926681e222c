import Foundation
import Motion

/// Writes samples as `.gcsv` or CSV through a 1 MiB buffer, batch by batch.
/// gcsv is written with `tscale` 1 ns (timestamps stay exact), `gscale` 1 (rad/s) and `ascale` 1
/// with acceleration in g, which is Gyroflow's unit; CSV keeps nanoseconds, rad/s and m/s^2.
public final class TraceFileWriter {
    public let path: String
    public let format: TraceFormat
    private let hasAccel: Bool
    private let handle: FileHandle
    private var pending: [UInt8] = []
    public private(set) var count = 0

    /// Writes the description of `trace` (its info, whether it has acceleration, its stated
    /// axes) as the header; its samples come through `write`.
    public convenience init(path: String, format: TraceFormat, trace: MotionTrace) throws {
        try self.init(path: path, format: format, info: trace.info, hasAccel: trace.hasAccel, axisMapping: trace.axisMapping)
    }

    /// `axisMapping`: the axes a camera's telemetry states, a gcsv `axisMapping` line (CSV has no header for it).
    public init(path: String, format: TraceFormat, info: TraceInfo, hasAccel: Bool, axisMapping: AxisMapping? = nil) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw TraceFileError(path: path, "cannot be written")
        }
        self.path = path; self.format = format; self.hasAccel = hasAccel; self.handle = handle
        pending.reserveCapacity(1 << 20)
        var header = ""
        switch format {
        case .csv:
            header = hasAccel ? "t_ns,gx,gy,gz,ax,ay,az\n" : "t_ns,gx,gy,gz\n"
        case .gcsv:
            header = "GYROFLOW IMU LOG\nversion,1\n"
            header += "id,\(info.deviceName.isEmpty ? "lockstep" : oneLine(info.deviceName))\n"
            // A trace from IIO is in the device's own axes: identity, unless the source said otherwise.
            header += "orientation,\(info.orientation ?? "XYZ")\n"
            var lines = info.metadata
            if case .orientation(let s)? = axisMapping { lines["axisMapping"] = s }
            for (key, value) in lines.sorted(by: { $0.key < $1.key })
            where !["log", "id", "version", "orientation", "tscale", "gscale", "ascale", "mscale"].contains(key) {
                header += "\(oneLine(key)),\(oneLine(value))\n"
            }
            header += "tscale,0.000000001\ngscale,1\nascale,1\n"
            header += hasAccel ? "t,gx,gy,gz,ax,ay,az\n" : "t,gx,gy,gz\n"
        }
        pending.append(contentsOf: header.utf8)
    }

    private func oneLine(_ s: String) -> String { s.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ") }

    public func write(_ samples: [IMUReading]) throws {
        let accelFactor = format == .gcsv ? 1 / standardGravity : 1
        for s in samples {
            var line = "\(s.t),\(s.gyro.x),\(s.gyro.y),\(s.gyro.z)"
            if hasAccel {
                guard let a = s.accel else { throw TraceFileError(path: path, "sample at \(s.t) ns has no acceleration") }
                line += ",\(a.x * accelFactor),\(a.y * accelFactor),\(a.z * accelFactor)"
            }
            line += "\n"
            pending.append(contentsOf: line.utf8)
            if pending.count >= 1 << 20 { try flush() }
        }
        count += samples.count
    }

    private func flush() throws {
        do { try handle.write(contentsOf: pending) } catch { throw TraceFileError(path: path, "cannot be written (\(error.localizedDescription))") }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and closes the file.
    public func finish() throws {
        try flush()
        do { try handle.close() } catch { throw TraceFileError(path: path, "cannot be closed (\(error.localizedDescription))") }
    }
}
