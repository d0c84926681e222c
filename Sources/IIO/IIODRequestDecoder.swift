import Glibc
import NIOCore

/// What a client of the replay server asked for, as framed from its byte stream.
public enum IIODRequest: Equatable, Sendable {
    /// A command line, with the raw bytes that followed it where the command announces them
    /// (`WRITE ... <len>` sends its value right after the line; empty for every other command).
    case command(IIODCommand, payload: [UInt8])
    /// A line longer than the decoder's bound: its bytes were dropped as they came, never kept.
    case lineTooLong
    /// A `WRITE` announcing more bytes than the bound: the payload cannot be skipped safely
    /// (it could be anything, of any length), so the connection ends after the answer.
    case payloadTooLarge(IIODCommand)
}

/// Frames iiod's client-to-server byte stream: lines ending in `\n` (a `\r` before it is
/// whitespace to the parser), and after a `WRITE` line the `<len>` raw bytes it announced.
/// (`WRITEBUF` needs no payload framing: a 0.24 client waits for the answer before sending data,
/// iiod-client.c `iiod_client_write_unlocked`, and this server refuses it.)
///
/// Memory is bounded whatever arrives: a line longer than `maxLine` is discarded as it streams
/// in and reported once its end comes; a payload over `maxPayload` is refused. Pure: no I/O,
/// tested and fuzzed on byte buffers split anywhere.
public struct IIODRequestDecoder: NIOSingleStepByteToMessageDecoder {
    public typealias InboundOut = IIODRequest

    public let maxLine: Int
    public let maxPayload: Int

    enum State: Equatable {
        case line
        /// Inside a line that outgrew `maxLine`: dropping bytes up to its newline.
        case discarding
        /// A `WRITE` whose value is still arriving.
        case payload(IIODCommand, length: Int)
    }
    private(set) var state = State.line

    public init(maxLine: Int = 4096, maxPayload: Int = 4096) {
        self.maxLine = max(1, maxLine); self.maxPayload = max(0, maxPayload)
    }

    public mutating func decode(buffer: inout ByteBuffer) -> IIODRequest? {
        while true {
            switch state {
            case .line:
                guard let newline = Self.newline(in: buffer) else {
                    if buffer.readableBytes > maxLine {
                        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                        state = .discarding
                    }
                    return nil
                }
                let length = newline - buffer.readerIndex
                guard length <= maxLine else {
                    buffer.moveReaderIndex(to: newline + 1)
                    return .lineTooLong
                }
                let line = buffer.readString(length: length) ?? ""
                buffer.moveReaderIndex(forwardBy: 1)
                let command = IIODCommand(line: Substring(line))
                guard case .write(_, _, _, let n) = command else { return .command(command, payload: []) }
                guard n <= maxPayload else { return .payloadTooLarge(command) }
                state = .payload(command, length: n)
            case .discarding:
                guard let newline = Self.newline(in: buffer) else {
                    buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                    return nil
                }
                buffer.moveReaderIndex(to: newline + 1)
                state = .line
                return .lineTooLong
            case .payload(let command, let n):
                guard let bytes = buffer.readBytes(length: n) else { return nil }
                state = .line
                return .command(command, payload: bytes)
            }
        }
    }

    /// The index of the first `\n` in the readable bytes (memchr: garbage floods are scanned at memory speed).
    static func newline(in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, let hit = memchr(base, 0x0A, bytes.count) else { return nil }
            return buffer.readerIndex + (UnsafeRawPointer(hit) - base)
        }
    }

    /// At end of stream an unfinished line or payload is dropped: iiod acts only on whole commands.
    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) -> IIODRequest? {
        if let request = decode(buffer: &buffer) { return request }
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return nil
    }
}
