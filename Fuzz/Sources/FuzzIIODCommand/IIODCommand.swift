import LibFuzzerDriver
import IIO

// IIODCommand(line:) parses every line a network client sends to `imu serve`: it must never
// trap, and what it returns must hold what the server relies on.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let line = String(decoding: bytes, as: UTF8.self)
    switch IIODCommand(line: Substring(line)) {
    case .timeout(let n), .readbuf(_, let n), .writebuf(_, let n), .setBuffersCount(_, let n):
        precondition(n >= 0, "a negative count parsed")
    case .open(let device, let samples, _, _):
        precondition(samples >= 0 && !device.isEmpty)
    case .write(_, _, _, let length):
        precondition(length >= 0)
    default: break
    }
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzIIODCommand_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
