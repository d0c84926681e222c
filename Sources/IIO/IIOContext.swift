import CIIO
import Glibc

/// Owns an iio_context (iio_context_destroy in deinit). Devices and channels borrowed from it
/// hold a reference to it, so it lives as long as any of them.
public final class IIOContext {
    let pointer: OpaquePointer
    public let uri: String

    public init(uri: String, timeoutMs: UInt32 = 5000) throws {
        self.uri = uri
        // libiio 0.24 writes into the URI it is given (a NUL over the port's ':'): give it a copy.
        var copy = Array(uri.utf8CString)
        errno = 0
        pointer = try iioCheck("iio_create_context_from_uri(\(uri))", copy.withUnsafeMutableBufferPointer { iio_create_context_from_uri($0.baseAddress) })
        // The pointer is ours from here: deinit frees it even if the timeout cannot be set.
        try iioCheck("iio_context_set_timeout", iio_context_set_timeout(pointer, timeoutMs))
    }

    deinit { iio_context_destroy(pointer) }

    public var devices: [IIODevice] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { i in iio_context_get_device(pointer, i).map { IIODevice($0, self) } }
    }

    /// By id (`iio:device0`), name or label, as iio_context_find_device matches.
    public func device(named name: String) -> IIODevice? {
        iio_context_find_device(pointer, name).map { IIODevice($0, self) }
    }
}

/// A device borrowed from its context; never freed here.
public struct IIODevice {
    let pointer: OpaquePointer
    public let context: IIOContext

    init(_ pointer: OpaquePointer, _ context: IIOContext) { self.pointer = pointer; self.context = context }

    public var id: String { String(cString: iio_device_get_id(pointer)) }
    public var name: String? { iio_device_get_name(pointer).map { String(cString: $0) } }

    public func channel(_ id: String) -> IIOChannel? {
        iio_device_find_channel(pointer, id, false).map { IIOChannel($0, self) }
    }

    public func readAttribute(_ attr: String) throws -> String {
        var text = [CChar](repeating: 0, count: 1024)
        try iioCheck("iio_device_attr_read(\(attr))", iio_device_attr_read(pointer, attr, &text, text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func writeAttribute(_ attr: String, _ value: Double) throws {
        try iioCheck("iio_device_attr_write_double(\(attr))", iio_device_attr_write_double(pointer, attr, value))
    }

    public var attributes: [String] {
        (0..<iio_device_get_attrs_count(pointer)).compactMap { iio_device_get_attr(pointer, $0).map { String(cString: $0) } }
    }
}

/// A channel borrowed from its device; never freed here.
public struct IIOChannel {
    let pointer: OpaquePointer
    public let device: IIODevice

    init(_ pointer: OpaquePointer, _ device: IIODevice) { self.pointer = pointer; self.device = device }

    public var id: String { String(cString: iio_channel_get_id(pointer)) }
    public var isScanElement: Bool { iio_channel_is_scan_element(pointer) }
    public func enable() { iio_channel_enable(pointer) }

    public func hasAttribute(_ attr: String) -> Bool { iio_channel_find_attr(pointer, attr) != nil }

    public func readDouble(_ attr: String) throws -> Double {
        var value = 0.0
        try iioCheck("iio_channel_attr_read_double(\(id) \(attr))", iio_channel_attr_read_double(pointer, attr, &value))
        return value
    }

    /// Bytes per element in the buffer.
    var storageBytes: Int { Int(iio_channel_get_data_format(pointer).pointee.length / 8) }
    var isSigned: Bool { iio_channel_get_data_format(pointer).pointee.is_signed }

    /// The element at `source` in host order, shifted and sign-extended (iio_channel_convert).
    func integer(at source: UnsafeRawPointer) -> Int64 {
        var raw: UInt64 = 0
        withUnsafeMutableBytes(of: &raw) { iio_channel_convert(pointer, $0.baseAddress, source) }
        switch (storageBytes, isSigned) {
        case (1, true): return Int64(Int8(truncatingIfNeeded: raw))
        case (2, true): return Int64(Int16(truncatingIfNeeded: raw))
        case (4, true): return Int64(Int32(truncatingIfNeeded: raw))
        case (1, false): return Int64(UInt8(truncatingIfNeeded: raw))
        case (2, false): return Int64(UInt16(truncatingIfNeeded: raw))
        case (4, false): return Int64(UInt32(truncatingIfNeeded: raw))
        default: return Int64(bitPattern: raw)
        }
    }
}

/// Owns an iio_buffer (iio_buffer_destroy in deinit) and keeps its device's context alive.
public final class IIOBuffer {
    let pointer: OpaquePointer
    public let device: IIODevice

    public init(device: IIODevice, samples: Int) throws {
        self.device = device
        errno = 0
        pointer = try iioCheck("iio_device_create_buffer(\(device.id))", iio_device_create_buffer(device.pointer, samples, false))
    }

    deinit { iio_buffer_destroy(pointer) }

    /// Blocks until the buffer holds new samples; returns the number of bytes.
    public func refill() throws -> Int {
        try iioCheck("iio_buffer_refill(\(device.id))", iio_buffer_refill(pointer))
    }

    /// Makes a blocked refill return with an error; safe from another thread.
    public func cancel() { iio_buffer_cancel(pointer) }

    /// Calls `body` with each sample's element of `channel`.
    func forEach(_ channel: IIOChannel, _ body: (UnsafeRawPointer) -> Void) {
        let step = iio_buffer_step(pointer)
        guard step > 0, var p = iio_buffer_first(pointer, channel.pointer) else { return }
        let end = iio_buffer_end(pointer)!
        while p < end { body(UnsafeRawPointer(p)); p += step }
    }
}

/// The one thing another thread may do to a buffer: cancel it (libiio documents
/// iio_buffer_cancel as safe to call from another thread while a refill blocks). Holding only
/// this, a signal handler cannot refill, read or free the buffer.
struct IIOBufferCanceller: @unchecked Sendable {
    private let buffer: IIOBuffer
    init(_ buffer: IIOBuffer) { self.buffer = buffer }
    func cancel() { buffer.cancel() }
}
