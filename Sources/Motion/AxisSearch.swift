/// The IMU-to-camera orientations `calibrate` searches when nothing fixes them: the 24 proper
/// rotations among the signed permutations of the axes.
///
/// Why 24 and not Gyroflow's 48: a global picture shift only sees the camera's rotation about its
/// x axis (vertical shift) and y axis (horizontal shift); roll about z moves the picture's middle
/// nowhere. So only the x and y rows of the mapping are observable, and each of the 24 (x row,
/// y row) pairs belongs to exactly two signed permutations, one proper (det +1) and one improper
/// (det -1), which differ only in the sign of the z row. A gyro and a camera frame are both
/// right-handed, so the proper one is the physical one: searching the 48 would score every
/// candidate twice and let a coin toss pick the z sign.
public struct SignedPermutation: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// For camera axis i (x right, y down, z forward), the IMU axis it reads (0, 1, 2) and its sign.
    public let axes: [Int]
    public let signs: [Double]

    public init(axes: [Int], signs: [Double]) { self.axes = axes; self.signs = signs }

    /// The orientation string (letter i = the IMU axis that becomes camera axis i; lowercase = inverted).
    public var orientation: String {
        String(
            (0..<3).map { i -> Character in
                let c: Character = ["X", "Y", "Z"][axes[i]]
                return signs[i] > 0 ? c : Character(c.lowercased())
            })
    }
    public var description: String { orientation }
    public var mapping: AxisMapping { .orientation(orientation) }

    public var determinant: Double {
        // Sign of the permutation (even: +1) times the signs.
        let inversions = (0..<3).reduce(0) { n, i in n + ((i + 1)..<3).filter { axes[i] > axes[$0] }.count }
        return (inversions % 2 == 0 ? 1 : -1) * signs[0] * signs[1] * signs[2]
    }

    /// All 48 signed permutations.
    public static let all: [SignedPermutation] = {
        let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        var out: [SignedPermutation] = []
        for p in perms {
            for s in 0..<8 {
                out.append(SignedPermutation(axes: p, signs: [s & 1 == 0 ? 1 : -1, s & 2 == 0 ? 1 : -1, s & 4 == 0 ? 1 : -1]))
            }
        }
        return out
    }()

    /// The 24 proper rotations: what `calibrate` searches.
    public static let proper: [SignedPermutation] = all.filter { $0.determinant > 0 }

    /// The signed permutation an orientation string or a matrix states, if it is one.
    public init?(_ mapping: AxisMapping) {
        let rows = mapping.rows
        var axes: [Int] = [], signs: [Double] = []
        for r in rows {
            guard let a = r.indices.first(where: { abs(r[$0]) == 1 }), r.indices.allSatisfy({ $0 == a || r[$0] == 0 }) else { return nil }
            axes.append(a); signs.append(r[a])
        }
        guard Set(axes).count == 3 else { return nil }
        self.init(axes: axes, signs: signs)
    }
}

/// Sums over frame intervals from which the correlation between the picture's motion and the
/// gyro's predicted motion follows for any signed permutation in O(1): per IMU axis a, the
/// integral I_a of the (bias-free) rate over the interval; the picture's dx, dy and, with roll,
/// dz (the roll angle times a weight in pixels per radian).
struct CrossSums {
    var n = 0.0
    var si = Vec3.zero, sii = Vec3.zero
    var sidx = Vec3.zero, sidy = Vec3.zero, sidz = Vec3.zero
    var sdx = 0.0, sdy = 0.0, sdz = 0.0, sdxx = 0.0, sdyy = 0.0, sdzz = 0.0
    /// Whether the roll takes part: then the z row of the mapping is observed too.
    var useRoll = false

    init(useRoll: Bool = false) { self.useRoll = useRoll }

    mutating func add(_ i: Vec3, dx: Double, dy: Double, dz: Double = 0) {
        n += 1; si += i; sii += i * i; sidx += i * dx; sidy += i * dy
        sdx += dx; sdy += dy; sdxx += dx * dx; sdyy += dy * dy
        if useRoll { sidz += i * dz; sdz += dz; sdzz += dz * dz }
    }

    /// Pearson correlation (each component centred) between the picture's motion and the motion
    /// the mapping predicts: content moves left as the camera turns about +y (dx = -f * I_y),
    /// down as it turns about +x (dy = f * I_x), and the roll is the turn about +z (dz = w * I_z).
    /// f cancels: the match is scale-free (and w stands in for f on the roll).
    func correlation(_ p: SignedPermutation) -> Double {
        guard n >= 3 else { return -1 }
        let ax = p.axes[0], ay = p.axes[1], sx = p.signs[0], sy = p.signs[1]
        var cov = -sy * (sidx[ay] - si[ay] * sdx / n) + sx * (sidy[ax] - si[ax] * sdy / n)
        var varP = (sii[ay] - si[ay] * si[ay] / n) + (sii[ax] - si[ax] * si[ax] / n)
        var varD = (sdxx - sdx * sdx / n) + (sdyy - sdy * sdy / n)
        if useRoll {
            let az = p.axes[2], sz = p.signs[2]
            cov += sz * (sidz[az] - si[az] * sdz / n)
            varP += sii[az] - si[az] * si[az] / n
            varD += sdzz - sdz * sdz / n
        }
        guard varP > 0, varD > 0 else { return -1 }
        return cov / (varP * varD).squareRoot()
    }
}
