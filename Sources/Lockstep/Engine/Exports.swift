// The jobs speak in the lower modules' values: Compositor's (Rational, Size, RGB, Provenance),
// Media's (EncodeSettings, MediaError, probe results), Motion's (IMUReading, TraceInfo,
// Calibration), MotionIO's files, TraceStore's stores and Verify's reports. A user of the library,
// and the CLI, gets them all with `import Lockstep` alone.
@_exported import Compositor
@_exported import Media
@_exported import Motion
@_exported import MotionIO
@_exported import TraceStore
@_exported import Verify
