// The IMU jobs speak in Motion's values (IMUReading, TraceInfo, TraceFormat), MotionIO's files
// (Calibration.load/save) and TraceStore's stores: a user of the library (and the CLI) gets them
// with `import Lockstep` alone.
@_exported import Motion
@_exported import MotionIO
@_exported import TraceStore
