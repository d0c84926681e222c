// The jobs speak in the lower modules' values: Engine's (JobError, OutputPath,
// StopSignals, ProgressMeter), Compositor's (Rational, Size, RGB, Provenance),
// Media's (EncodeSettings, MediaError, probe results), Motion's (IMUReading, TraceInfo,
// Calibration), MotionIO's files, TraceStore's stores and Verify's reports. A user of the library,
// and the CLI, gets them all with `import Lockstep` alone.
@_exported import Compositor
@_exported import Engine
@_exported import Media
@_exported import Motion
@_exported import MotionIO
@_exported import TraceStore
@_exported import Verify

/// A store written through a temporary names the output in its errors (`OutputPath.explain`).
extension TraceStoreError: PathNamingError {}
