import Dispatch
import Foundation
import Glibc

public struct IIODServerError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// Serves one `ReplayDevice` over libiio 0.24's iiod text protocol (TCP), a thread per
/// connection, so iio_info, iio_readdev and `lockstep imu record` can read a stored trace as if
/// it were a gyro on the network.
public final class IIODServer: @unchecked Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 30431
        /// Replay speed: 2 = twice as fast; 0 = as fast as the client reads.
        public var speed = 1.0
        /// Start again from the first sample (timestamps continuing) after the last.
        public var loop = false
        public init(host: String = "127.0.0.1", port: UInt16 = 30431, speed: Double = 1, loop: Bool = false) {
            self.host = host; self.port = port; self.speed = speed; self.loop = loop
        }
    }

    public let device: ReplayDevice
    public let options: Options
    /// The port actually listened on (the one picked when asked for port 0).
    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var connections = Set<Int32>()
    private var stopped = false
    private let acceptDone = DispatchSemaphore(value: 0)

    /// Binds and listens; `start()` begins accepting.
    public init(device: ReplayDevice, options: Options = Options()) throws {
        self.device = device; self.options = options
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = options.port.bigEndian
        let host = options.host == "localhost" ? "127.0.0.1" : options.host
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw IIODServerError(description: "\(options.host) is not an IPv4 address")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IIODServerError(description: "socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw IIODServerError(description: "cannot listen on \(options.host):\(options.port) (\(why))")
        }
        var actual = sockaddr_in(), length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = UInt16(bigEndian: actual.sin_port)
    }

    deinit { stop() }

    /// Accepts connections on a background thread until `stop()`.
    public func start() {
        let thread = Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    break
                }
                lock.lock()
                if stopped { lock.unlock(); close(client); break }
                connections.insert(client)
                lock.unlock()
                let worker = Thread { [self] in
                    IIODConnection(fd: client, device: device, speed: options.speed, loop: options.loop).run()
                    lock.lock(); connections.remove(client); lock.unlock()
                    close(client)
                }
                worker.stackSize = 1 << 20
                worker.start()
            }
            acceptDone.signal()
        }
        thread.start()
    }

    /// Stops accepting and ends every connection.
    public func stop() {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        for c in connections { shutdown(c, Int32(SHUT_RDWR)) }
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
