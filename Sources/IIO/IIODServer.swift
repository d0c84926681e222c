import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

public struct IIODServerError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Serves one `ReplayDevice` over libiio 0.24's iiod text protocol (TCP) on SwiftNIO, so
/// iio_info, iio_readdev and `lockstep imu record` can read a stored trace as if it were a gyro on
/// the network. One event loop serves every connection (no thread per client); connections over
/// `maxConnections` are answered -EBUSY and closed; a connection silent for `idleTimeout` is
/// closed; accept() failing for lack of descriptors (EMFILE, ENFILE) pauses accepting for 100 ms.
public final class IIODServer: Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 30431
        /// Replay speed: 2 = twice as fast; 0 = as fast as the client reads. Finite and >= 0.
        public var speed = 1.0
        /// Start again from the first sample (timestamps continuing) after the last.
        public var loop = false
        /// Connections served at once; more are answered -EBUSY and closed.
        public var maxConnections = 256
        /// Seconds without a byte either way after which a connection (not waiting for samples) is closed.
        public var idleTimeout = 300.0
        /// The longest command line; a longer one is answered -EINVAL and dropped as it arrives.
        public var maxLine = 4096
        /// The largest WRITE value accepted (attribute values are short).
        public var maxWrite = 4096

        public init(
            host: String = "127.0.0.1", port: UInt16 = 30431, speed: Double = 1, loop: Bool = false,
            maxConnections: Int = 256, idleTimeout: Double = 300
        ) {
            self.host = host; self.port = port; self.speed = speed; self.loop = loop
            self.maxConnections = maxConnections; self.idleTimeout = idleTimeout
        }
    }

    /// What the server has seen since it started.
    public struct Statistics: Equatable, Sendable {
        /// Connections served (not counting refused ones).
        public var accepted = 0
        /// Connections open now.
        public var open = 0
        /// Connections over `maxConnections`, answered -EBUSY and closed.
        public var refused = 0
        /// Connections closed for idling.
        public var idleClosed = 0
        /// Lines over `maxLine`.
        public var linesTooLong = 0
        /// accept() failures that made the server pause accepting (EMFILE, ENFILE, ENOBUFS, ENOMEM).
        public var acceptErrors = 0
    }

    public let device: ReplayDevice
    public let options: Options
    /// The port actually listened on (the one picked when asked for port 0).
    public let port: UInt16
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let stats: NIOLockedValueBox<Statistics>
    private let stopped = NIOLockedValueBox(false)
    /// Every connection open now (refused ones too), so `stop()` can end them itself.
    private let children: NIOLockedValueBox<[ObjectIdentifier: Channel]>

    /// Binds and listens; connections wait in the backlog until `start()`.
    public init(device: ReplayDevice, options: Options = Options()) throws {
        guard options.speed.isFinite && options.speed >= 0 else {
            throw IIODServerError("the replay speed must be 0 or a positive finite factor; got \(options.speed)")
        }
        guard options.maxConnections >= 1 else { throw IIODServerError("at least one connection must be allowed") }
        guard options.idleTimeout.isFinite && options.idleTimeout > 0 else {
            throw IIODServerError("the idle timeout must be a positive number of seconds; got \(options.idleTimeout)")
        }
        self.device = device; self.options = options
        let host = options.host == "localhost" ? "127.0.0.1" : options.host
        let address: SocketAddress
        do { address = try SocketAddress(ipAddress: host, port: Int(options.port)) } catch {
            throw IIODServerError("\(options.host) is not an IPv4 or IPv6 address")
        }
        let stats = NIOLockedValueBox(Statistics())
        self.stats = stats
        let children = NIOLockedValueBox([ObjectIdentifier: Channel]())
        self.children = children
        var xml = ByteBuffer(string: device.xml)
        var print = ByteBuffer(string: "\(xml.readableBytes)\n")
        print.writeBuffer(&xml)
        print.writeString("\n")
        let settings = IIODConnectionSettings(
            device: device, printAnswer: print, speed: options.speed, loop: options.loop, maxLine: options.maxLine,
            maxPayload: options.maxWrite,
            events: { event in
                stats.withLockedValue {
                    switch event {
                    case .idleClosed: $0.idleClosed += 1
                    case .lineTooLong: $0.linesTooLong += 1
                    }
                }
            })
        let maxConnections = options.maxConnections
        let idle = TimeAmount.nanoseconds(Int64(min(options.idleTimeout, 1e9) * 1e9))
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Accepting starts with start(); until then connections wait in the backlog.
            .serverChannelOption(.autoRead, value: false)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPause(stats))
                }
            }
            // The connection handler asks for input when it is ready for it.
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 64 * 1024))
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                children.withLockedValue { $0[id] = channel }
                channel.closeFuture.whenComplete { _ in children.withLockedValue { _ = $0.removeValue(forKey: id) } }
                let admitted = stats.withLockedValue { s -> Bool in
                    guard s.open < maxConnections else { s.refused += 1; return false }
                    s.open += 1; s.accepted += 1
                    return true
                }
                guard admitted else {
                    return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(RefuseHandler()) }
                }
                channel.closeFuture.whenComplete { _ in stats.withLockedValue { $0.open -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        IdleStateHandler(allTimeout: idle),
                        IIODConnectionHandler(settings))
                }
            }
        do {
            channel = try bootstrap.bind(to: address).wait()
        } catch {
            try? group.syncShutdownGracefully()
            let why = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw IIODServerError("cannot listen on \(Self.display(host, options.port)) (\(why))")
        }
        port = UInt16(channel.localAddress?.port ?? Int(options.port))
    }

    deinit { stop() }

    /// `host:port`, with IPv6 addresses in brackets.
    static func display(_ host: String, _ port: UInt16) -> String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Begins accepting connections.
    public func start() {
        channel.setOption(.autoRead, value: true).whenSuccess { [channel] in channel.read() }
    }

    /// Counters since the server started.
    public var statistics: Statistics { stats.withLockedValue { $0 } }

    /// Stops accepting, ends every connection whatever its client is doing (idle, waiting for
    /// samples, not reading what was sent: nothing sent is waited for), then closes the listener
    /// and the event loop. Safe to call twice, and from any thread but the server's own event
    /// loop (where it only begins the shutdown).
    public func stop() {
        let first = stopped.withLockedValue { done in
            defer { done = true }; return !done
        }
        guard first else { return }
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            channel.close(promise: nil)
            group.shutdownGracefully { _ in }
            return
        }
        // One task on the loop, so it runs at its next turn whatever the connections are doing.
        let (listener, children) = (channel, children)
        try? channel.eventLoop.submit {
            try? listener.syncOptions?.setOption(.autoRead, value: false)
            for child in children.withLockedValue({ Array($0.values) }) { child.close(promise: nil) }
            listener.close(promise: nil)
        }.wait()
        try? group.syncShutdownGracefully()
    }
}

/// accept() failing for lack of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) leaves the
/// listener open (NIO's ServerSocketChannel), but the pending connection keeps the socket readable,
/// so accept() would be retried in a busy loop until a descriptor frees up. This pauses accepting
/// for 100 ms instead (autoRead off, then on), and counts the failures. NIO's AcceptBackoffHandler
/// only delays `read()` calls, which a failed accept never makes.
private final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = Channel
    typealias InboundOut = Channel
    private let stats: NIOLockedValueBox<IIODServer.Statistics>
    private var paused = false
    init(_ stats: NIOLockedValueBox<IIODServer.Statistics>) { self.stats = stats }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard error is IOError, let options = context.channel.syncOptions else { return context.fireErrorCaught(error) }
        stats.withLockedValue { $0.acceptErrors += 1 }
        guard !paused, (try? options.setOption(.autoRead, value: false)) != nil else { return }
        paused = true
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { [self] in
            paused = false
            if context.channel.isActive { try? context.channel.syncOptions?.setOption(.autoRead, value: true) }
        }
    }
}

/// A connection over the cap: told -EBUSY (a libiio client reports "Device or resource busy"),
/// then closed once the client has read it, or after a second.
private final class RefuseHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "\(-EBUSY)\n")), promise: nil)
        // Half-close: the answer is followed by FIN, not lost to a reset from closing on unread input.
        context.close(mode: .output, promise: nil)
        context.read()
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
    func channelReadComplete(context: ChannelHandlerContext) { context.read() }
    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
