import Foundation
import TestSupport
import XCTest

@testable import Motion

/// Lens models against OpenCV 5.0 (pip opencv-python-headless: cv2.fisheye.projectPoints,
/// cv2.fisheye.undistortPoints, cv2.projectPoints, the values below), and Gyroflow's published
/// lens profiles (Fixtures/lens).
final class LensProfileTests: XCTestCase {
    let hero5 = Repository.fixture("lens/gopro-hero5-black-wide-16by9.json")
    let rays: [SIMD3<Double>] = [SIMD3(0.1, -0.2, 1.0), SIMD3(0.8, 0.45, 1.0), SIMD3(-0.6, 0.3, 0.7)]

    func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }

    func profile() throws -> LensProfile { try LensProfile.decode(Data(contentsOf: URL(fileURLWithPath: hero5)), source: hero5) }

    func testFisheyeProjectsAsOpenCV() throws {
        let lens = try profile().lens
        let opencv: [SIMD2<Double>] = [
            SIMD2(2099.5033483612515, 745.7634372215457), SIMD2(3096.5234892701046, 1750.0124752219695), SIMD2(688.5975242342677, 1710.7814750934658)
        ]
        for (r, want) in zip(rays, opencv) { XCTAssertEqual(distance(lens.project(r)!, want), 0, accuracy: 1e-6) }
    }

    func testFisheyeUnprojectsAsOpenCV() throws {
        let lens = try profile().lens
        let opencv: [(SIMD2<Double>, SIMD2<Double>)] = [
            (SIMD2(300, 200), SIMD2(-1.3640148642048635, -0.7479457203887074)), (SIMD2(3500, 2000), SIMD2(1.2943138801991678, 0.7469969428945976))
        ]
        for (pixel, normalised) in opencv {
            let r = lens.unproject(pixel)
            XCTAssertEqual(r.x / r.z, normalised.x, accuracy: 1e-7)
            XCTAssertEqual(r.y / r.z, normalised.y, accuracy: 1e-7)
            XCTAssertEqual(r.length, 1, accuracy: 1e-12)
        }
    }

    func testStandardProjectsAsOpenCVAndRoundTrips() throws {
        let m = try profile().lens
        let lens = CameraLens(fx: m.fx, fy: m.fy, cx: m.cx, cy: m.cy, model: .opencvStandard(k: [-0.28, 0.09, 0.001, -0.0007, -0.012]))
        let opencv: [SIMD2<Double>] = [
            SIMD2(2099.399544930931, 745.9359406417543), SIMD2(3077.6268812384715, 1741.4441130110113), SIMD2(704.4577242887815, 1703.89910921087)
        ]
        for (r, want) in zip(rays, opencv) {
            let p = lens.project(r)!
            XCTAssertEqual(distance(p, want), 0, accuracy: 1e-6)
            let back = lens.unproject(p)
            XCTAssertEqual((back - r / r.length).length, 0, accuracy: 1e-6)
        }
    }

    func testProfileIsReadAndScaledToTheClip() throws {
        let p = try profile()
        XCTAssertEqual(p.calibWidth, 3840)
        XCTAssertEqual(p.frameReadoutMs ?? 0, 16.68333, accuracy: 1e-9)
        // karma.mp4's 854x480 is 16:9 to within 0.1%: the profile scaled by 854/3840.
        let lens = try p.lens(width: 854, height: 480, source: hero5)
        XCTAssertEqual(lens.fx, 1755.1525825593744 * 854 / 3840, accuracy: 1e-9)
        XCTAssertEqual(lens.cx, (1926.4584812102041 + 0.5) * 854 / 3840 - 0.5, accuracy: 1e-9)
        XCTAssertEqual(lens.model, p.lens.model)
    }

    func testProfileForAnotherShapeIsRefused() throws {
        XCTAssertThrowsError(try profile().lens(width: 1440, height: 1080, source: "p.json")) {
            XCTAssertEqual(
                "\($0)",
                "p.json: a lens profile for 3840x2160 pictures, not for this clip's 1440x1080 (another shape: another mode of the camera)")
        }
    }

    func testBrokenProfilesAreOneLine() {
        func message(_ text: String) -> String {
            do { _ = try LensProfile.decode(Data(text.utf8), source: "l.json"); return "read" } catch { return "\(error)" }
        }
        XCTAssertEqual(message("{\"calib_dimension\": {\"w\": 10"), "l.json: not a Gyroflow lens profile (The given data was not valid JSON.)")
        XCTAssertEqual(message("{}"), "l.json: not a Gyroflow lens profile (no calib_dimension)")
        let body = "\"calib_dimension\": {\"w\": 100, \"h\": 50}, \"fisheye_params\": {\"camera_matrix\": [[50,0,50],[0,50,25],[0,0,1]], \"distortion_coeffs\": [0,0,0,0]}"
        XCTAssertEqual(message("{\(body), \"distortion_model\": \"poly3\"}"), "l.json: distortion_model \"poly3\" is not one Lockstep reads (opencv_fisheye or opencv_standard)")
        XCTAssertEqual(message("{\(body), \"frame_readout_time\": -3}"), "l.json: frame_readout_time must be between 0 and 1000 ms; got -3.0")
        XCTAssertEqual(message("{\(body)}"), "read")
    }

    func testCalibratedLensIsTheOneTermFisheye() {
        // calibrate's LensModel, r = f theta (1 + k1 theta^2), about the centre.
        let model = LensModel(focalLengthPx: 548, k1: 0.05)
        let lens = CameraLens(focalLengthPx: 548, k1: 0.05, width: 854, height: 480)
        for r in rays {
            let want = model.pixel(r / r.length)!
            let got = lens.project(r)!
            XCTAssertEqual(got.x - lens.cx, want.x, accuracy: 1e-9)
            XCTAssertEqual(got.y - lens.cy, want.y, accuracy: 1e-9)
        }
    }
}
