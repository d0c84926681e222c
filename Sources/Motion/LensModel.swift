import RealModule

/// A radially symmetric lens about the picture's centre, as OpenCV's fisheye model (Kannala and
/// Brandt) with one distortion term, which Gyroflow's lens profiles use too: a ray at angle
/// theta from the optical axis lands at radius r = f * theta * (1 + k1 * theta^2) pixels from
/// the centre. k1 = 0 is an equidistant fisheye; a rectilinear (pinhole) lens, r = f tan theta,
/// is close to k1 = 1/3 (tan theta = theta + theta^3 / 3 + ...: within 2% of the radius out to
/// a 70 degree field of view). Camera axes: x right, y down, z forward; pixels relative to the
/// picture's centre, x right, y down.
public struct LensModel: Equatable, Sendable, CustomStringConvertible {
    public var focalLengthPx: Double
    public var k1: Double

    public init(focalLengthPx: Double, k1: Double = 0) { self.focalLengthPx = focalLengthPx; self.k1 = k1 }

    public var description: String { String(format1: focalLengthPx) + " px, k1 " + String(format2: k1) }

    /// The radius (px) of a ray at angle `theta` (radians) from the optical axis.
    @inlinable public func radius(theta: Double) -> Double { focalLengthPx * theta * (1 + k1 * theta * theta) }

    /// The angle from the optical axis of the ray landing at `radius` px: Newton's method on
    /// r(theta) (which rises over the angles a lens shows; where it stops rising, the last step).
    public func theta(radius r: Double) -> Double {
        let f = focalLengthPx
        var t = r / f
        for _ in 0..<12 {
            let g = t * (1 + k1 * t * t) - r / f
            let d = 1 + 3 * k1 * t * t
            guard d > 1e-6 else { break }
            let step = g / d
            t -= step
            if abs(step) < 1e-12 { break }
        }
        return t
    }

    /// The unit ray (camera axes) through the pixel (x, y) from the centre.
    public func ray(x: Double, y: Double) -> SIMD3<Double> {
        let r = (x * x + y * y).squareRoot()
        guard r > 1e-12 else { return SIMD3(0, 0, 1) }
        let t = theta(radius: r)
        let s = Double.sin(t) / r
        return SIMD3(x * s, y * s, Double.cos(t))
    }

    /// The pixel (from the centre) a ray lands on; nil behind the camera.
    public func pixel(_ ray: SIMD3<Double>) -> (x: Double, y: Double)? {
        let rho = (ray.x * ray.x + ray.y * ray.y).squareRoot()
        let t = Double.atan2(y: rho, x: ray.z)
        guard t < 0.5 * Double.pi * 1.9 else { return nil }
        guard rho > 1e-15 else { return (0, 0) }
        let r = radius(theta: t) / rho
        return (ray.x * r, ray.y * r)
    }

    /// The horizontal field of view (degrees) of a picture `width` px wide.
    public func horizontalFOVDegrees(width: Int) -> Double {
        2 * theta(radius: Double(width) / 2) * 180 / .pi
    }

    /// The horizontal field of view (degrees) a pinhole lens of focal length f gives.
    public static func pinholeFOVDegrees(focalLengthPx f: Double, width: Int) -> Double {
        2 * Double.atan(Double(width) / 2 / f) * 180 / .pi
    }
}

extension String {
    init(format1 v: Double) { self = "\((v * 10).rounded() / 10)" }
    init(format2 v: Double) { self = "\((v * 100).rounded() / 100)" }
}
