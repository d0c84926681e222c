/// One 8-bit plane of a picture, borrowed: the memory belongs to whoever made the view
/// (an AVFrame in the media layer, a `YUVBuffer` in tests). `owner`, when set, is that object:
/// the view keeps it alive, so a view can never point into freed memory.
public struct Plane {
    public var base: UnsafeMutablePointer<UInt8>
    public var stride: Int
    public var width: Int
    public var height: Int
    public let owner: AnyObject?
    public init(base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, owner: AnyObject? = nil) {
        self.base = base; self.stride = stride; self.width = width; self.height = height; self.owner = owner
    }
    @inline(__always) public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride }
    @inline(__always) public subscript(x: Int, y: Int) -> UInt8 {
        get { base[y * stride + x] }
        nonmutating set { base[y * stride + x] = newValue }
    }
}

/// A planar 4:2:0 8-bit picture (yuv420p): the one format the kernels work on.
public struct YUVImage {
    public var y: Plane
    public var u: Plane
    public var v: Plane
    public var width: Int { y.width }
    public var height: Int { y.height }
    public init(y: Plane, u: Plane, v: Plane) { self.y = y; self.u = u; self.v = v }

    /// The part of the picture inside `rect` (x, y and width even), sharing memory.
    public func cropped(to rect: Rect) -> YUVImage {
        precondition(rect.x % 2 == 0 && rect.y % 2 == 0, "4:2:0 crops start on even pixels")
        func sub(_ p: Plane, _ shift: Int) -> Plane {
            Plane(
                base: p.base + (rect.y >> shift) * p.stride + (rect.x >> shift), stride: p.stride,
                width: (rect.width + (1 << shift) - 1) >> shift, height: (rect.height + (1 << shift) - 1) >> shift,
                owner: p.owner)
        }
        return YUVImage(y: sub(y, 0), u: sub(u, 1), v: sub(v, 1))
    }
}

/// A picture that owns its memory: scratch space for effects, and pictures made in tests.
/// Its `image` views keep the buffer alive (their planes' `owner`).
public final class YUVBuffer {
    public let width: Int, height: Int
    private let storage: UnsafeMutablePointer<UInt8>
    private let count: Int

    public var image: YUVImage {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        return YUVImage(
            y: Plane(base: storage, stride: width, width: width, height: height, owner: self),
            u: Plane(base: storage + width * height, stride: cw, width: cw, height: ch, owner: self),
            v: Plane(base: storage + width * height + cw * ch, stride: cw, width: cw, height: ch, owner: self))
    }

    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        self.width = width; self.height = height
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        count = width * height + 2 * cw * ch
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0, count: count)
    }
    deinit { storage.deallocate() }
}

/// A colour in video-range Y'CbCr 8-bit, as the planes store it.
public struct YUVColor: Equatable, Sendable {
    public var y: UInt8, u: UInt8, v: UInt8
    public init(y: UInt8, u: UInt8, v: UInt8) { self.y = y; self.u = u; self.v = v }
    public static let black = YUVColor(y: 16, u: 128, v: 128)

    /// Video range from 8-bit R'G'B' in `matrix`: by default BT.709, the SDR working signal's
    /// (`WorkingSignal`), which every input is converted to.
    public init(rgb: RGB, matrix: ColorMatrix = .bt709) {
        let (yy, cb, cr) = matrix.yuv(Double(rgb.r) / 255, Double(rgb.g) / 255, Double(rgb.b) / 255)
        func q(_ x: Double) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
        self.init(y: q(16 + 219 * yy), u: q(128 + 224 * cb), v: q(128 + 224 * cr))
    }
}

public struct RGB: Equatable, Sendable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8) { self.r = r; self.g = g; self.b = b }
    /// "00FF00", "#00ff00": exactly six hex digits (UInt32(_:radix:) alone would take "+12345").
    public init?(hex: String) {
        let s = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard s.utf8.count == 6, s.allSatisfy(\.isHexDigit), let v = UInt32(s, radix: 16) else { return nil }
        self.init(r: UInt8(v >> 16), g: UInt8((v >> 8) & 0xFF), b: UInt8(v & 0xFF))
    }
}
