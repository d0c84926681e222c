import LibFuzzerDriver
import Motion

// A camm sample comes straight from the user's file: parsing it must never trap.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let data = Array(bytes)
    _ = try? CAMM.parse(data)
    if let imu = try? CAMM.read([TelemetryPacket(bytes: data, time: 0, duration: 0.005),
                                  TelemetryPacket(bytes: data, time: 0.005, duration: 0.005)]) { _ = imu.readings() }
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzCAMM_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
