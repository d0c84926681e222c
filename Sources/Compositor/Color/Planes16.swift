/// One plane of 16-bit samples (10- or 12-bit values, little end first as FFmpeg's
/// `yuv420p10le` stores them), borrowed like `Plane`. `stride` counts samples, not bytes.
public struct Plane16 {
    public var base: UnsafeMutablePointer<UInt16>
    public var stride: Int
    public var width: Int
    public var height: Int
    public let owner: AnyObject?
    public init(base: UnsafeMutablePointer<UInt16>, stride: Int, width: Int, height: Int, owner: AnyObject? = nil) {
        self.base = base; self.stride = stride; self.width = width; self.height = height; self.owner = owner
    }
    @inline(__always) public func row(_ y: Int) -> UnsafeMutablePointer<UInt16> { base + y * stride }
    @inline(__always) public subscript(x: Int, y: Int) -> UInt16 {
        get { base[y * stride + x] }
        nonmutating set { base[y * stride + x] = newValue }
    }
}

/// A planar 4:2:0 picture of 16-bit samples: what HDR inputs decode to, and the HDR working
/// signal's pictures (`WorkingSignal.hlg`, `.pq`: 10-bit values).
public struct YUV16Image {
    public var y: Plane16
    public var u: Plane16
    public var v: Plane16
    public var width: Int { y.width }
    public var height: Int { y.height }
    public init(y: Plane16, u: Plane16, v: Plane16) { self.y = y; self.u = u; self.v = v }

    /// The part inside `rect` (x, y even), sharing memory.
    public func cropped(to rect: Rect) -> YUV16Image {
        precondition(rect.x % 2 == 0 && rect.y % 2 == 0, "4:2:0 crops start on even pixels")
        func sub(_ p: Plane16, _ shift: Int) -> Plane16 {
            Plane16(
                base: p.base + (rect.y >> shift) * p.stride + (rect.x >> shift), stride: p.stride,
                width: (rect.width + (1 << shift) - 1) >> shift, height: (rect.height + (1 << shift) - 1) >> shift, owner: p.owner)
        }
        return YUV16Image(y: sub(y, 0), u: sub(u, 1), v: sub(v, 1))
    }
}

/// A 16-bit picture that owns its memory (scratch space, tests).
public final class YUV16Buffer {
    public let width: Int, height: Int
    private let storage: UnsafeMutablePointer<UInt16>

    public var image: YUV16Image {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        return YUV16Image(
            y: Plane16(base: storage, stride: width, width: width, height: height, owner: self),
            u: Plane16(base: storage + width * height, stride: cw, width: cw, height: ch, owner: self),
            v: Plane16(base: storage + width * height + cw * ch, stride: cw, width: cw, height: ch, owner: self))
    }

    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        self.width = width; self.height = height
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let count = width * height + 2 * cw * ch
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0, count: count)
    }
    deinit { storage.deallocate() }
}
