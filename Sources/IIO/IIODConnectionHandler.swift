import Glibc
import NIOCore

/// What every connection of one server shares (immutable, so it crosses event loops freely).
struct IIODConnectionSettings: Sendable {
    let device: ReplayDevice
    /// `PRINT`'s answer, built once: `<len>\n<xml>\n`.
    let printAnswer: ByteBuffer
    let speed: Double
    let loop: Bool
    let maxLine: Int
    let maxPayload: Int
    /// Told when a connection is closed for idling or sends an oversize line (the server counts them).
    let events: @Sendable (IIODConnectionHandler.Event) -> Void
}

/// One client connection of the replay server, on its event loop: frames requests from the bytes
/// read (`IIODRequestDecoder`), answers them in order, and streams READBUF samples as they fall
/// due. Backpressure both ways: it reads (the channel's autoRead is off) only when it is not
/// streaming and the channel is writable, so neither unread requests nor unsent answers pile up
/// for a client that sends without reading; a READBUF goes out a chunk at a time while the
/// channel stays writable.
final class IIODConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Event: Sendable { case idleClosed, lineTooLong }

    /// A READBUF being answered.
    struct Readbuf {
        var remaining: Int
        var first = true
        /// Host time of the last chunk (or of the command): a chunk waits for its samples at most `ReplayStream.maxWait`.
        var since: UInt64
    }

    private let settings: IIODConnectionSettings
    private var decoder: IIODRequestDecoder
    /// Bytes read and not yet framed: at most one read's worth plus a bounded partial line.
    private var input = ByteBuffer()
    private var stream: ReplayStream?
    private var readbuf: Readbuf?
    private var timer: Scheduled<Void>?
    private var closing = false

    init(_ settings: IIODConnectionSettings) {
        self.settings = settings
        decoder = IIODRequestDecoder(maxLine: settings.maxLine, maxPayload: settings.maxPayload)
    }

    private var device: ReplayDevice { settings.device }
    private static var now: UInt64 { NIODeadline.now().uptimeNanoseconds }

    // MARK: events

    func channelActive(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        timer?.cancel(); timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        input.writeBuffer(&bytes)
    }

    func channelReadComplete(context: ChannelHandlerContext) { drive(context) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { drive(context) }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A client waiting for its READBUF is not idle: the wait is the trace's.
        if case .all? = event as? IdleStateHandler.IdleStateEvent, readbuf == nil, !closing {
            settings.events(.idleClosed)
            close(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A reset or a broken pipe: the client is gone; nothing to tell it.
        close(context)
    }

    private func close(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        timer?.cancel(); timer = nil
        context.close(promise: nil)
    }

    /// Sends what has been written, then closes (close alone would drop unsent bytes).
    private func closeAfterFlush(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    // MARK: the loop

    /// Set while `drive` runs: a writability change fired from inside its own flush only asks it
    /// to go round again. (Called back in, it recursed once per flush of a fast stream, and the
    /// event loop never got back to its tasks: a signal's `stop()` waited for ever.)
    private var driving = false
    private var again = false
    private var turnScheduled = false
    /// READBUF chunks one turn may send before the event loop serves its other connections and
    /// tasks (closing them all on a stop among them); the rest follows in a later turn.
    static let chunksPerTurn = 2

    /// Answers requests and streams samples while the channel is writable; asks for more input
    /// only when everything read so far is answered.
    private func drive(_ context: ChannelHandlerContext) {
        if driving { again = true; return }
        driving = true
        defer { driving = false }
        var chunks = 0
        repeat {
            again = false
            while !closing && context.channel.isWritable {
                if readbuf != nil {
                    guard chunks < Self.chunksPerTurn else { return yieldTurn(context) }
                    chunks += 1
                    if pump(context) { continue } else { break }
                }
                guard let request = decoder.decode(buffer: &input) else { break }
                handle(request, context)
            }
            if closing { return }
            context.flush()
        } while again && !closing
        if closing { return }
        if input.readableBytes == 0 { input.clear() } else if input.readerIndex > 64 * 1024 { input.discardReadBytes() }
        if readbuf == nil && context.channel.isWritable { context.read() }
    }

    /// Sends what this turn wrote and comes back a millisecond later. Not `execute`: NIO runs
    /// tasks queued while it runs tasks before it looks at I/O again, so a stream re-queuing
    /// itself kept other connections and new accepts waiting as long as it lasted.
    private func yieldTurn(_ context: ChannelHandlerContext) {
        context.flush()
        guard !turnScheduled else { return }
        turnScheduled = true
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(1)) { [self] in
            turnScheduled = false
            drive(context)
        }
    }

    private func write(_ text: String, _ context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
    }

    private func code(_ n: Int32, _ context: ChannelHandlerContext) { write("\(n)\n", context) }

    /// `<n>\n<value>\n`, as iiod answers READ.
    private func value(_ text: String, _ context: ChannelHandlerContext) {
        write("\(text.utf8.count)\n\(text)\n", context)
    }

    // MARK: commands

    private func handle(_ request: IIODRequest, _ context: ChannelHandlerContext) {
        switch request {
        case .lineTooLong:
            settings.events(.lineTooLong)
            code(-EINVAL, context)
        case .payloadTooLarge:
            code(-EINVAL, context)
            closeAfterFlush(context)
        case .command(let command, let payload):
            handle(command, payload, context)
        }
    }

    private func handle(_ command: IIODCommand, _ payload: [UInt8], _ context: ChannelHandlerContext) {
        switch command {
        case .empty: break
        case .exit: closeAfterFlush(context)
        case .print: context.write(wrapOutboundOut(settings.printAnswer), promise: nil)
        case .version: write("0.24.v0.24  \n", context)
        case .timeout: code(0, context)
        case .zprint, .binary, .help, .unknown, .writebuf: code(-EINVAL, context)
        case .gettrig(let d): code(known(d) ? -ENOENT : -ENODEV, context)
        case .settrig(let d, let trigger):
            code(!known(d) ? -ENODEV : trigger == nil ? 0 : -ENODEV, context)
        case .setBuffersCount(let d, let n):
            code(!known(d) ? -ENODEV : n >= 1 ? 0 : -EINVAL, context)
        case .read(let d, let target, let attr):
            guard known(d) else { return code(-ENODEV, context) }
            guard let text = read(target, attr) else { return code(-ENOENT, context) }
            value(text, context)
        case .write(let d, let target, let attr, _):
            guard known(d) else { return code(-ENODEV, context) }
            code(Int32(clamping: write(target, attr, payload)), context)
        case .open(let d, let samples, let mask, _):
            guard known(d) else { return code(-ENODEV, context) }
            guard samples > 0,
                let s = ReplayStream(
                    device: device, mask: mask, speed: settings.speed, loop: settings.loop,
                    startHost: Self.now)
            else { return code(-EINVAL, context) }
            stream = s
            code(0, context)
        case .close(let d):
            guard known(d) else { return code(-ENODEV, context) }
            stream = nil
            code(0, context)
        case .readbuf(let d, let bytes):
            guard known(d) else { return code(-ENODEV, context) }
            guard let s = stream else { return code(-EBADF, context) }
            guard bytes > 0, bytes % s.sampleSize == 0 else { return code(-EINVAL, context) }
            guard !s.exhausted else { return code(-ENODATA, context) }
            readbuf = Readbuf(remaining: bytes / s.sampleSize, since: Self.now)
        }
    }

    private func known(_ d: String) -> Bool { d == device.id || d == device.name }

    private func read(_ target: IIODCommand.Target, _ attr: String) -> String? {
        switch target {
        case .device: return device.deviceAttribute(attr)
        case .channel(let c, let output): return output ? nil : device.channelAttribute(c, attr)
        case .buffer:
            switch attr {
            case "data_available": return "0"
            case "enable": return stream == nil ? "0" : "1"
            case "length", "watermark": return "1"
            default: return nil
            }
        case .debug: return nil
        }
    }

    /// Bytes written or -errno. Only sampling_frequency is writable, and only to the trace's rate.
    private func write(_ target: IIODCommand.Target, _ attr: String, _ payload: [UInt8]) -> Int {
        guard target == .device, attr == "sampling_frequency" else {
            return read(target, attr) == nil ? -Int(ENOENT) : -Int(EACCES)
        }
        let text = String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self).trimmingWhitespace
        guard let v = Double(text), abs(v - device.rateHz) <= device.rateHz * 1e-6 else { return -Int(EINVAL) }
        return payload.count
    }

    // MARK: READBUF

    /// One step of the READBUF in progress: sends a chunk (the mask line after the first chunk's
    /// size) or ends it early with `0` when the replay has no more samples; true if it did. When
    /// nothing is due yet it sets a timer to come back, and returns false.
    private func pump(_ context: ChannelHandlerContext) -> Bool {
        guard var r = readbuf, var s = stream else { readbuf = nil; return true }
        let now = Self.now
        switch s.step(remaining: r.remaining, now: now, since: r.since) {
        case .end:
            code(0, context)
            readbuf = nil
        case .send(let n):
            var out = context.channel.allocator.buffer(capacity: n * s.sampleSize + 32)
            out.writeString("\(n * s.sampleSize)\n")
            if r.first {
                let hex = String(s.mask, radix: 16)
                out.writeString(String(repeating: "0", count: max(0, 8 - hex.count)) + hex + "\n")
            }
            for k in s.next..<s.next + n { device.pack(k, s.layout, sampleSize: s.sampleSize, into: &out) }
            context.write(wrapOutboundOut(out), promise: nil)
            s.next += n; r.remaining -= n; r.first = false; r.since = now
            stream = s
            readbuf = r.remaining > 0 ? r : nil
        case .wait(let until):
            context.flush()
            if timer == nil {
                timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: .uptimeNanoseconds(until)) { [self] in
                    timer = nil
                    drive(context)
                }
            }
            return false
        }
        return true
    }
}

extension String {
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
