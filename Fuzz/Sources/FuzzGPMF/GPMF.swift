import LibFuzzerDriver
import Motion

// A gpmd payload comes straight from the user's file: parsing it, reading its sensor streams
// (SCAL, TYPE, rows) and timing them must never trap, whatever the bytes.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let data = Array(bytes)
    if let items = try? GPMF.parse(data) {
        for item in items { _ = item.string; _ = try? item.rows() }
    }
    // Two packets of the same payload, so the rate fit runs too.
    let packets = [TelemetryPacket(bytes: data, time: 0, duration: 1), TelemetryPacket(bytes: data, time: 1, duration: 1)]
    if let imu = try? GoProIMU.read(packets, modelHint: "HERO5 Black") { _ = imu.readings() }
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzGPMF_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
