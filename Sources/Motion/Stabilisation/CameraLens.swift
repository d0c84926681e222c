import RealModule

/// A camera's lens as OpenCV models it, in the picture's pixels (origin at the top-left pixel's
/// centre, x right, y down; camera axes x right, y down, z forward): the focal lengths and
/// principal point of the camera matrix, and a distortion model. `project` takes a ray to the
/// pixel it lands on, `unproject` a pixel back to its ray: the two halves of the warp's inverse
/// map.
public struct CameraLens: Equatable, Sendable {
    public enum Model: Equatable, Sendable {
        /// No distortion: x = fx * X / Z + cx.
        case pinhole
        /// OpenCV's fisheye (Kannala-Brandt): theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6
        /// + k4 theta^8) with theta the ray's angle from the optical axis; x = fx * theta_d * X / rho + cx.
        case opencvFisheye(k: [Double])
        /// OpenCV's standard model: k1, k2, p1, p2, k3[, k4, k5, k6] (radial, tangential, rational),
        /// on the normalised pinhole coordinates.
        case opencvStandard(k: [Double])
    }

    public var fx: Double, fy: Double, cx: Double, cy: Double
    public var model: Model

    public init(fx: Double, fy: Double, cx: Double, cy: Double, model: Model) {
        self.fx = fx; self.fy = fy; self.cx = cx; self.cy = cy; self.model = model
    }

    /// Calibrate's lens (`LensModel`: r = f theta (1 + k1 theta^2) about the picture's centre) is
    /// OpenCV's fisheye with one term; without a k1, a pinhole of that focal length.
    public init(focalLengthPx f: Double, k1: Double?, width: Int, height: Int) {
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        self.init(fx: f, fy: f, cx: cx, cy: cy, model: k1.map { .opencvFisheye(k: [$0, 0, 0, 0]) } ?? .pinhole)
    }

    /// The same lens for a picture `scale` times as large (a profile calibrated at another size).
    public func scaled(_ scale: Double) -> CameraLens {
        // Pixel centres: the top-left pixel's centre stays at 0.
        CameraLens(fx: fx * scale, fy: fy * scale, cx: (cx + 0.5) * scale - 0.5, cy: (cy + 0.5) * scale - 0.5, model: model)
    }

    /// The pixel a ray (camera axes) lands on; nil for a ray behind the camera (or, for the
    /// standard model, at 90 degrees or more).
    @inlinable public func project(_ r: SIMD3<Double>) -> SIMD2<Double>? {
        switch model {
        case .pinhole:
            guard r.z > 1e-9 else { return nil }
            return SIMD2(fx * r.x / r.z + cx, fy * r.y / r.z + cy)
        case .opencvFisheye(let k):
            let rho = (r.x * r.x + r.y * r.y).squareRoot()
            let theta = Double.atan2(y: rho, x: r.z)
            guard theta < 0.5 * .pi * 1.9 else { return nil }
            guard rho > 1e-15 else { return SIMD2(cx, cy) }
            let t2 = theta * theta
            let td = theta * (1 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3]))))
            return SIMD2(fx * td * r.x / rho + cx, fy * td * r.y / rho + cy)
        case .opencvStandard(let k):
            guard r.z > 1e-9 else { return nil }
            let x = r.x / r.z, y = r.y / r.z
            let d = Self.standard(x, y, k)
            return SIMD2(fx * d.x + cx, fy * d.y + cy)
        }
    }

    /// The unit ray through pixel p.
    public func unproject(_ p: SIMD2<Double>) -> SIMD3<Double> {
        let xd = (p.x - cx) / fx, yd = (p.y - cy) / fy
        switch model {
        case .pinhole:
            return Self.unit(SIMD3(xd, yd, 1))
        case .opencvFisheye(let k):
            let td = (xd * xd + yd * yd).squareRoot()
            guard td > 1e-15 else { return SIMD3(0, 0, 1) }
            // Newton on theta (1 + k1 theta^2 + ...) = td, from theta = td.
            var t = td
            for _ in 0..<20 {
                let t2 = t * t
                let g = t * (1 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3])))) - td
                let dg = 1 + t2 * (3 * k[0] + t2 * (5 * k[1] + t2 * (7 * k[2] + t2 * 9 * k[3])))
                guard dg > 1e-6 else { break }
                let step = g / dg
                t -= step
                if abs(step) < 1e-12 { break }
            }
            let s = Double.sin(t) / td
            return SIMD3(xd * s, yd * s, Double.cos(t))
        case .opencvStandard(let k):
            // OpenCV's undistortPoints: fixed-point iteration on the distorted coordinates.
            var x = xd, y = yd
            let p1 = k.count > 2 ? k[2] : 0, p2 = k.count > 3 ? k[3] : 0
            for _ in 0..<20 {
                let r2 = x * x + y * y
                let (num, den) = Self.radial(r2, k)
                let icdist = den / num
                let dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x), dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
                x = (xd - dx) * icdist; y = (yd - dy) * icdist
            }
            return Self.unit(SIMD3(x, y, 1))
        }
    }

    /// OpenCV's standard distortion of normalised coordinates (x, y).
    @inlinable static func standard(_ x: Double, _ y: Double, _ k: [Double]) -> SIMD2<Double> {
        let r2 = x * x + y * y
        let (num, den) = radial(r2, k)
        let c = num / den
        let p1 = k.count > 2 ? k[2] : 0, p2 = k.count > 3 ? k[3] : 0
        return SIMD2(x * c + 2 * p1 * x * y + p2 * (r2 + 2 * x * x), y * c + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)
    }

    /// The radial factor's numerator 1 + k1 r^2 + k2 r^4 + k3 r^6 and denominator 1 + k4 r^2 + k5 r^4 + k6 r^6.
    @inlinable static func radial(_ r2: Double, _ k: [Double]) -> (Double, Double) {
        func c(_ i: Int) -> Double { i < k.count ? k[i] : 0 }
        let num = 1 + r2 * (c(0) + r2 * (c(1) + r2 * c(4)))
        let den = 1 + r2 * (c(5) + r2 * (c(6) + r2 * c(7)))
        return (num, den)
    }

    static func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / v.length }
}
