import RealModule

/// A rotation as a unit quaternion (w + xi + yj + zk), the attitude of CoreMotion's device
/// motion. swift-numerics' QuaternionModule is not in the pinned release (1.1.x), so this is
/// the little of it that the attitude filter needs; its fields are named as there.
public struct Quaternion: Equatable, Hashable, Sendable {
    /// The real part.
    public var w: Double
    /// The imaginary part (x, y, z).
    public var imaginary: SIMD3<Double>

    public init(w: Double, x: Double, y: Double, z: Double) { self.w = w; imaginary = SIMD3(x, y, z) }
    public init(real w: Double, imaginary: SIMD3<Double>) { self.w = w; self.imaginary = imaginary }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    public var x: Double { imaginary.x }
    public var y: Double { imaginary.y }
    public var z: Double { imaginary.z }

    public var conjugate: Quaternion { Quaternion(real: w, imaginary: -imaginary) }
    public var length: Double { (w * w + (imaginary * imaginary).sum()).squareRoot() }
    public var normalized: Quaternion { let n = length; return Quaternion(real: w / n, imaginary: imaginary / n) }

    /// The rotation by `angle` radians about `axis` (a unit vector).
    public init(angle: Double, axis: SIMD3<Double>) {
        self.init(real: Double.cos(angle / 2), imaginary: axis * Double.sin(angle / 2))
    }

    /// The Hamilton product: `a * b` rotates by b, then by a.
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            real: a.w * b.w - (a.imaginary * b.imaginary).sum(),
            imaginary: a.w * b.imaginary + b.w * a.imaginary + a.imaginary.cross(b.imaginary))
    }

    /// `v` turned by this rotation (q v q*).
    public func act(on v: SIMD3<Double>) -> SIMD3<Double> {
        (self * Quaternion(real: 0, imaginary: v) * conjugate).imaginary
    }
}

extension SIMD3 where Scalar == Double {
    /// self x b.
    @inlinable public func cross(_ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }

    /// The Euclidean length.
    @inlinable public var length: Double { (self * self).sum().squareRoot() }
}
