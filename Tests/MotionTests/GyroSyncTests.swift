import Motion
import XCTest

/// A synthetic camera made here, with no video: the picture's frame-to-frame shift and the gyro
/// an IMU mounted in some orientation would have logged, on a clock with an offset, drift and
/// jumps. The shifts are exact angle differences (plus noise); the gyro is the exact rate.
struct SyntheticRig {
    var seconds = 8.0
    var fps = 30.0
    var imuHz = 200.0
    var f = 400.0
    /// IMU axes to camera axes (camera = M * imu).
    var mapping = AxisMapping.orientation("XYZ")
    var clock = ClockMapping.constant(offsetMs: 143)
    var bias = [0.01, -0.02, 0.005]
    var gyroNoise = 0.003
    var pixelNoise = 0.03
    /// Video-time spans in which the camera is at rest.
    var still: [ClosedRange<Double>] = [0...1]
    var seed: UInt64 = 7

    /// Motion weight: 0 inside a still span, easing in and out over 0.3 s at its ends.
    func weight(_ v: Double) -> Double {
        var w = 1.0
        for s in still {
            if s.contains(v) { return 0 }
            let d = v < s.lowerBound ? s.lowerBound - v : v - s.upperBound
            if d < 0.3 { w = min(w, 0.5 - 0.5 * cos(.pi * d / 0.3)) }
        }
        return w
    }
    /// Angles (rad) about camera x (tilt) and y (pan): irregular sums of sines, not periodic.
    func pan(_ v: Double) -> Double { 0.5 * sin(1.3 * v) + 0.2 * sin(3.1 * v + 0.7) + 0.07 * sin(7.7 * v + 2) }
    func tilt(_ v: Double) -> Double { 0.25 * sin(1.9 * v + 1) + 0.1 * sin(4.3 * v + 0.2) }

    /// Rates by numeric differentiation of weighted angles integrated: keep it simple by
    /// defining the rate as weight * d(angle)/dv and integrating it for the picture.
    func rate(_ v: Double) -> (x: Double, y: Double) {
        let h = 1e-5, w = weight(v)
        return (w * (tilt(v + h) - tilt(v - h)) / (2 * h), w * (pan(v + h) - pan(v - h)) / (2 * h))
    }
    func integral(_ a: Double, _ b: Double) -> (x: Double, y: Double) {
        let n = 64, h = (b - a) / Double(n)
        var sx = 0.0, sy = 0.0
        for i in 0...n {
            let r = rate(a + Double(i) * h)
            let c = (i == 0 || i == n) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0)
            sx += c * r.x; sy += c * r.y
        }
        return (sx * h / 3, sy * h / 3)
    }

    func make() -> (shifts: [VideoShift], readings: [IMUReading]) {
        var rng = SplitMix(seed)
        var shifts: [VideoShift] = []
        let frames = Int(seconds * fps)
        for k in 0..<(frames - 1) {
            let a = Double(k) / fps, b = Double(k + 1) / fps
            let i = integral(a, b)
            shifts.append(
                VideoShift(
                    from: Int64((a * 1e9).rounded()), to: Int64((b * 1e9).rounded()),
                    dx: -f * i.y + pixelNoise * rng.gaussian(), dy: f * i.x + pixelNoise * rng.gaussian()))
        }
        // The IMU runs from 1 s before the video to 1 s after it, on its own clock.
        let m = mapping.rows
        var readings: [IMUReading] = []
        let t0 = clock.imuTime(fromVideo: -1), t1 = clock.imuTime(fromVideo: seconds + 1)
        var t = t0
        while t <= t1 {
            let v = clock.videoTime(fromIMU: t)
            let r = rate(v)
            let cam = [r.x, r.y, 0.0]
            // imu = M^T * cam (M orthogonal).
            let imu = (0..<3).map { j in (0..<3).reduce(0.0) { $0 + m[$1][j] * cam[$1] } + bias[j] + gyroNoise * rng.gaussian() }
            readings.append(IMUReading(t: Int64((t * 1e9).rounded()), gyro: SIMD3(imu[0], imu[1], imu[2])))
            t += 1 / imuHz
        }
        return (shifts, readings)
    }
}

struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gaussian() -> Double { (-2 * log(max(uniform(), 1e-300))).squareRoot() * cos(2 * .pi * uniform()) }
}

final class GyroSyncTests: XCTestCase {
    func testTheSearchCoversTheTwentyFourProperRotationsOnce() {
        XCTAssertEqual(SignedPermutation.all.count, 48)
        XCTAssertEqual(SignedPermutation.proper.count, 24)
        XCTAssertTrue(SignedPermutation.proper.allSatisfy { $0.determinant == 1 })
        // Every observable (x row, y row) pair appears exactly once.
        let rows = Set(SignedPermutation.proper.map { "\($0.axes[0])\($0.signs[0])\($0.axes[1])\($0.signs[1])" })
        XCTAssertEqual(rows.count, 24)
        XCTAssertEqual(SignedPermutation(.orientation("xZy"))?.orientation, "xZy")
        XCTAssertEqual(SignedPermutation(.orientation("XYZ"))?.determinant, 1)
        XCTAssertEqual(SignedPermutation(.orientation("XYz"))?.determinant, -1)
    }

    func testGyroflowOrientationStringsTurnIntoCameraAxes() {
        // Gyroflow's gyro frame is (up, left, backward) in camera terms; Lockstep's x right, y down, z forward.
        XCTAssertEqual(AxisMapping.gyroflow("XYZ"), .orientation("yxz"))
        XCTAssertEqual(AxisMapping.gyroflow("xzY"), .orientation("ZXy"))
        // A phone in landscape, top to the right, back camera (Android axes x right of the screen,
        // y up it, z out of it): Gyroflow's "xyZ" is camera = [[0,1,0],[1,0,0],[0,0,-1]] * imu.
        XCTAssertEqual(AxisMapping.gyroflow("xyZ"), .orientation("YXz"))
        XCTAssertEqual(AxisMapping.orientation("YXz").rows, [[0, 1, 0], [1, 0, 0], [0, 0, -1]])
        // Every proper Gyroflow orientation stays proper.
        for p in SignedPermutation.proper {
            XCTAssertEqual(SignedPermutation(AxisMapping.gyroflow(p.orientation)!)?.determinant, 1, p.orientation)
        }
        XCTAssertNil(AxisMapping.gyroflow("XXZ"))
    }

    func testTheAxisSearchFindsTheMountingAmongAllOrientations() throws {
        // A sample of the 48 (proper and improper); the search must find the x and y rows, and
        // answer the proper rotation that shares them.
        for name in ["XYZ", "xZy", "YxZ", "zXy", "ZyX", "yzX", "XYz", "xyz"] {
            var rig = SyntheticRig()
            rig.mapping = .orientation(name)
            rig.seconds = 6
            let (shifts, readings) = rig.make()
            let r = try GyroSync.run(shifts: shifts, readings: readings, options: .init(searchMs: 600))
            let found = try XCTUnwrap(SignedPermutation(r.mapping))
            let truth = try XCTUnwrap(SignedPermutation(rig.mapping))
            XCTAssertEqual(found.axes[0...1], truth.axes[0...1], name)
            XCTAssertEqual(found.signs[0...1], truth.signs[0...1], name)
            XCTAssertEqual(found.determinant, 1, name)
            XCTAssertEqual(r.clock.offsetMs(atVideo: 0), 143, accuracy: 1, name)
            XCTAssertLessThan(try XCTUnwrap(r.runnerUp).score, r.correlation - 0.05, name)
        }
    }

    func testTheDefaultSearchRangeFindsAnOffsetOfTwoAndAHalfSeconds() throws {
        var rig = SyntheticRig()
        rig.clock = .constant(offsetMs: 2500)
        let (shifts, readings) = rig.make()
        let r = try GyroSync.run(shifts: shifts, readings: readings, options: .init())
        XCTAssertEqual(r.clock.offsetMs(atVideo: 0), 2500, accuracy: 1)
        XCTAssertGreaterThan(r.confidence, 0.7)
    }

    func testDriftIsFittedWithinTwentyPpm() throws {
        for ppm in [200.0, 1000.0] {
            var rig = SyntheticRig()
            rig.seconds = 60
            rig.clock = .constant(offsetMs: 143, driftPpm: ppm)
            let (shifts, readings) = rig.make()
            let r = try GyroSync.run(shifts: shifts, readings: readings, options: .init(searchMs: 1000))
            XCTAssertEqual(r.clock.pieces.count, 1)
            XCTAssertEqual(r.clock.pieces[0].driftPpm, ppm, accuracy: 20)
            for v in [0.0, 30, 60] { XCTAssertEqual(r.clock.offsetMs(atVideo: v), rig.clock.offsetMs(atVideo: v), accuracy: 1, "\(ppm) ppm at \(v) s") }
        }
    }

    func testAClockJumpIsFoundWithItsTimeAndBothSidesRight() throws {
        var rig = SyntheticRig()
        rig.seconds = 10
        // The IMU's clock jumps 50 ms ahead at video time 4 s: IMU time = video time - offset, so
        // the offset drops by 50 ms (a jump back would repeat timestamps, which no reader takes).
        rig.clock = ClockMapping(pieces: [.init(fromVideoS: 0, offsetMs: 143), .init(fromVideoS: 4, offsetMs: 93)])
        let (shifts, readings) = rig.make()
        let r = try GyroSync.run(shifts: shifts, readings: readings, options: .init(searchMs: 1000))
        XCTAssertEqual(r.jumps.count, 1)
        XCTAssertEqual(try XCTUnwrap(r.jumps.first).videoTimeS, 4, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(r.jumps.first).stepMs, -50, accuracy: 1)
        for v in [0.5, 2, 3.5] { XCTAssertEqual(r.clock.offsetMs(atVideo: v), 143, accuracy: 1, "before, \(v) s") }
        for v in [4.5, 7, 9.5] { XCTAssertEqual(r.clock.offsetMs(atVideo: v), 93, accuracy: 1, "after, \(v) s") }
    }

    func testTheBiasComesOnlyFromStillIntervalsAndAllOfThem() throws {
        var rig = SyntheticRig()
        rig.still = [0...1.5, 4...5]
        let (shifts, readings) = rig.make()
        let r = try GyroSync.run(shifts: shifts, readings: readings, options: .init(searchMs: 600, focalLengthPx: 400))
        let s = try XCTUnwrap(r.still)
        for i in 0..<3 { XCTAssertEqual(s.bias[i], rig.bias[i], accuracy: abs(rig.bias[i]) * 0.1, "axis \(i)") }
        // Both stretches, nearly all of their time (the picture is still from the first frame).
        XCTAssertEqual(s.spans.count, 2)
        XCTAssertGreaterThan(s.totalS, 2.2)
        XCTAssertLessThan(s.totalS, 2.6)

        // A camera that never stops: no bias claimed.
        rig.still = []
        let (moving, movingReadings) = rig.make()
        let m = try GyroSync.run(shifts: moving, readings: movingReadings, options: .init(searchMs: 600, focalLengthPx: 400))
        XCTAssertNil(m.still)
    }

    /// Readings handed in by a library caller go by the rule the commands apply on reading
    /// (`IMUReading.problem`): one NaN made every offset's score NaN, and the search said the
    /// trace overlapped the video nowhere.
    func testAReadingNoSensorGivesIsRefusedNamingIt() throws {
        var (shifts, readings) = SyntheticRig().make()
        readings[300].gyro.y = .nan
        XCTAssertThrowsError(try GyroSync.run(shifts: shifts, readings: readings, options: .init())) {
            XCTAssertEqual("\($0)", "the trace is not a motion sensor's: the sample at \(readings[300].t) ns holds gy = nan, not a finite number")
        }
        readings[300].gyro.y = -.infinity
        XCTAssertThrowsError(try GyroSync.run(shifts: shifts, readings: readings, options: .init())) {
            XCTAssertEqual("\($0)", "the trace is not a motion sensor's: the sample at \(readings[300].t) ns holds gy = -inf, not a finite number")
        }
    }

    func testAPeakAtTheEdgeOfTheSearchRangeIsRefused() throws {
        let (shifts, readings) = SyntheticRig().make()
        XCTAssertThrowsError(try GyroSync.run(shifts: shifts, readings: readings, options: .init(searchMs: 50))) {
            XCTAssertTrue("\($0)".contains("outside the search range") && "\($0)".contains("--search-ms"), "\($0)")
        }
    }

    func testConfidenceSeparatesRightFromWrong() throws {
        let rig = SyntheticRig()
        let (shifts, readings) = rig.make()
        let right = try GyroSync.run(shifts: shifts, readings: readings, options: .init())
        XCTAssertEqual(right.clock.offsetMs(atVideo: 0), 143, accuracy: 1)
        XCTAssertGreaterThan(right.confidence, 0.7)

        // An unrelated gyro: another seed's noise and a different motion (time-reversed rates).
        let reversed = readings.indices.map { IMUReading(t: readings[$0].t, gyro: readings[readings.count - 1 - $0].gyro) }
        let wrongTrace = try? GyroSync.run(shifts: shifts, readings: reversed, options: .init())
        // A wrong mapping forced (x and y swapped).
        let wrongAxes = try? GyroSync.run(shifts: shifts, readings: readings, options: .init(mapping: .orientation("YXZ")))
        var rng = SplitMix(99)
        var shuffled = readings
        for i in shuffled.indices.reversed() { let j = Int(rng.next() % UInt64(i + 1)); let g = shuffled[i].gyro; shuffled[i].gyro = shuffled[j].gyro; shuffled[j].gyro = g }
        let wrongShuffled = try? GyroSync.run(shifts: shifts, readings: shuffled, options: .init())
        for (name, r) in [("reversed", wrongTrace), ("swapped axes", wrongAxes), ("shuffled", wrongShuffled)] {
            if let r { XCTAssertLessThan(r.confidence, 0.3, name) }
        }
        print("confidence right \(right.confidence) reversed \(wrongTrace?.confidence ?? -1) swapped \(wrongAxes?.confidence ?? -1) shuffled \(wrongShuffled?.confidence ?? -1)")
    }

    func testDriftFitRejectsOutliersAndSplitsAtAJump() throws {
        // Spread over 27 s and 22 s: DriftFit claims a drift only over at least 20 s of sync points.
        var points = (0..<10).map { SyncPoint(videoTimeS: Double($0) * 3 + 1, offsetMs: 100 + 0.5e-3 * 1000 * Double($0) * 3, score: 0.9) }
        points[3].offsetMs += 40  // one wild window
        let one = try XCTUnwrap(DriftFit.fit(points))
        XCTAssertEqual(one.segments.count, 1)
        XCTAssertEqual(one.outliers, [3])
        XCTAssertEqual(one.driftPpm, 500, accuracy: 1)
        XCTAssertEqual(one.segments[0].offsetMs, 99.5, accuracy: 0.01)
        XCTAssertNil(one.driftNote)

        let jumped = (0..<12).map { i -> SyncPoint in
            let v = Double(i) * 2 + 0.5
            return SyncPoint(videoTimeS: v, offsetMs: (v < 12 ? 20 : 70) + 0.2 * v, score: 0.9)
        }
        let two = try XCTUnwrap(DriftFit.fit(jumped))
        XCTAssertEqual(two.segments.map(\.points), [0..<6, 6..<12])
        XCTAssertEqual(two.driftPpm, 200, accuracy: 1)
        XCTAssertEqual(two.segments[1].offsetMs - two.segments[0].offsetMs, 50, accuracy: 0.01)
    }

    /// A drift is claimed only on evidence: six windows over 8 s whose scatter happens to lean
    /// (the shape of a 10 s clip reported at 1835 ppm) give drift 0 and say why; the same lean
    /// over 40 s with 21 windows of 0.3 ms scatter is a drift.
    func testDriftIsNotClaimedWithoutEvidence() throws {
        let lean = [-6.0, -4.5, 1.0, -1.5, 5.0, 7.0]
        let short = lean.enumerated().map { SyncPoint(videoTimeS: 1.0 + 1.6 * Double($0.offset), offsetMs: $0.element, score: 0.8) }
        let s = try XCTUnwrap(DriftFit.fit(short, overlap: 2))
        XCTAssertEqual(s.driftPpm, 0)
        XCTAssertTrue(s.driftNote?.hasPrefix("drift not measurable: the sync points span ") == true && s.driftNote?.hasSuffix(" s (at least 20 s needed)") == true, "\(s.driftNote ?? "nil")")
        // Long enough but scattered: 1.5 ms steps alternating about a 50 ppm lean, 3 sigma not
        // reached. (The tolerance came from the scatter about a line that had settled on the even
        // windows: 0, so 1.5 ms, the odd half "outliers", and the drift fitted to the evens alone
        // with residuals of 0 was kept at 50 ppm.) Every window is an inlier now.
        let scattered = (0..<21).map { (i: Int) -> SyncPoint in
            let side: Double = i % 2 == 0 ? 1.5 : -1.5
            return SyncPoint(videoTimeS: 2.0 * Double(i), offsetMs: 0.05 * 2 * Double(i) + side, score: 0.8)
        }
        let sc = try XCTUnwrap(DriftFit.fit(scattered, overlap: 2))
        XCTAssertEqual(sc.driftPpm, 0)
        XCTAssertEqual(sc.inliers.count, 21, "the other half of the windows are not outliers")
        XCTAssertTrue(sc.driftNote?.hasPrefix("drift not measurable: ") == true && sc.driftNote?.contains("standard errors") == true, "\(sc.driftNote ?? "nil")")
        // A 60 ppm lean under a slow wander (residuals correlated from window to window far beyond
        // the half overlap, lag-1 autocorrelation 0.78): counted as the overlap alone, 3.8 standard
        // errors and claimed; with the residuals' own correlation (effective sample size), 1.9.
        let wander = [0.6, 0.7, 0.5, 0.2, -0.3, -0.6, -0.7, -0.5, -0.1, 0.3, 0.6]
        let slow = (0..<21).map { i in SyncPoint(videoTimeS: 2.0 * Double(i), offsetMs: 0.06 * 2 * Double(i) + wander[i % wander.count], score: 0.8) }
        let sl = try XCTUnwrap(DriftFit.fit(slow, overlap: 2))
        XCTAssertEqual(sl.driftPpm, 0, "\(sl.driftNote ?? "nil")")
        XCTAssertEqual(sl.inliers.count, 21)
        XCTAssertTrue(sl.driftNote?.contains("standard errors") == true, "\(sl.driftNote ?? "nil")")
        let wobble = [0.3, -0.2, 0.1, -0.3, 0.2]
        let long = (0..<21).map { i in SyncPoint(videoTimeS: 2.0 * Double(i), offsetMs: 0.5 * 2 * Double(i) + wobble[i % 5], score: 0.8) }
        let l = try XCTUnwrap(DriftFit.fit(long, overlap: 2))
        XCTAssertEqual(l.driftPpm, 500, accuracy: 20)
        XCTAssertNil(l.driftNote)
    }
}
