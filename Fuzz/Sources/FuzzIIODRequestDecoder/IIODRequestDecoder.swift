import LibFuzzerDriver
import IIO
import NIOCore

// The replay server's framing decoder on any byte stream, split into reads anywhere: it must
// never trap, never hold more than its line bound plus one read, and hand every WRITE exactly
// the bytes it announced. The first two bytes choose the read size and the line bound.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.count >= 2 else { return }
    let chunk = Int(bytes[0]) + 1
    let maxLine = Int(bytes[1]) * 16 + 1
    var decoder = IIODRequestDecoder(maxLine: maxLine, maxPayload: 64)
    var buffer = ByteBuffer()
    var i = 2
    while i < bytes.count {
        buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[i..<min(bytes.count, i + chunk)]))
        i += chunk
        while let request = decoder.decode(buffer: &buffer) {
            switch request {
            case .command(.write(_, _, _, let length), let payload):
                precondition(payload.count == length, "a WRITE got \(payload.count) bytes for \(length)")
            case .command(_, let payload):
                precondition(payload.isEmpty, "a payload after a command that announces none")
            case .payloadTooLarge(let command):
                guard case .write(_, _, _, let length) = command, length > 64 else { preconditionFailure("refused \(command)") }
            case .lineTooLong: break
            }
        }
        precondition(buffer.readableBytes <= max(maxLine, 64) + chunk, "\(buffer.readableBytes) bytes held")
        buffer.discardReadBytes()
    }
    _ = decoder.decodeLast(buffer: &buffer, seenEOF: true)
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzIIODRequestDecoder_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
