import LibFuzzerDriver
import Compositor

// Rational(parsing:) reads --fps and provenance time bases: it must never trap.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let r = Rational(parsing: text), r.den != 0 { _ = r.seconds }
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzRational_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
