import Foundation
import XCTest

@testable import Motion

/// The crop that hides the warp's borders.
final class ZoomPlanTests: XCTestCase {
    let lens = CameraLens(fx: 1000, fy: 1000, cx: 639.5, cy: 359.5, model: .pinhole)

    /// A camera yawed `yaw(t)` radians from a smoothed path that stays still.
    func stabilisation(yaw: @escaping (Double) -> Double) -> Stabilisation {
        let t = (0...300).map { Int64($0) * 10_000_000 }
        let camera = CameraPath(times: t, orientations: t.map { Quaternion(angle: yaw(Double($0) / 1e9), axis: SIMD3(0, 1, 0)) })
        let still = camera.with(t.map { _ in .identity })
        return Stabilisation(camera: camera, smoothed: still, lens: lens, width: 1280, height: 720, shutter: .global)
    }

    func testStillCameraNeedsNoZoom() {
        let s = stabilisation { _ in 0 }
        XCTAssertEqual(s.requiredZoom(frame: 0, limit: 2), 1, accuracy: 0.002)
        XCTAssertFalse(s.coversPicture(frame: 0, zoom: 0.99))
    }

    func testAYawNeedsTheZoomThatKeepsTheEdgeInside() {
        let yaw = 2 * Double.pi / 180
        let s = stabilisation { _ in yaw }
        let z = s.requiredZoom(frame: 0, limit: 2)
        // The output's right edge at zoom z must stay inside: w / (2 f z) <= tan(atan(w / 2f) - yaw);
        // the corners bind a little more (the turned plane's rows converge).
        let edge = 640 / (1000 * tan(atan(0.64) - yaw))
        XCTAssertGreaterThanOrEqual(z, edge - 0.001)
        XCTAssertLessThan(z, edge * 1.05)
        XCTAssertTrue(s.coversPicture(frame: 0, zoom: z))
        XCTAssertFalse(s.coversPicture(frame: 0, zoom: z - 0.003))
    }

    func testStaticIsTheLargestNeedDynamicFollowsAndTheCapHolds() {
        // A yaw that grows to 3 degrees at 1.5 s and comes back.
        let s = stabilisation { t in 3 * Double.pi / 180 * max(0, 1 - abs(t - 1.5) / 1.5) }
        let times = (0..<90).map { Int64($0) * 1_000_000_000 / 30 }
        let need = times.map { s.requiredZoom(frame: $0, limit: 4) }
        let fixed = ZoomPlan(s, times: times, mode: .static, maxZoom: 2, fps: 30)
        XCTAssertEqual(fixed.zoom[0], need.max()!, accuracy: 1e-12)
        XCTAssertEqual(Set(fixed.zoom).count, 1)
        XCTAssertEqual(fixed.framesOverCap, 0)
        let dynamic = ZoomPlan(s, times: times, mode: .dynamic, maxZoom: 2, fps: 30)
        for i in times.indices { XCTAssertGreaterThanOrEqual(dynamic.zoom[i], need[i] - 1e-12) }
        XCTAssertLessThan(dynamic.zoom[0], fixed.zoom[0] - 0.01, "the start needs less than the peak")
        let capped = ZoomPlan(s, times: times, mode: .static, maxZoom: 1.02, fps: 30)
        XCTAssertEqual(capped.zoom[0], 1.02)
        XCTAssertEqual(capped.framesOverCap, need.filter { $0 > 1.02 }.count)
        XCTAssertGreaterThan(capped.framesOverCap, 0)
        XCTAssertEqual(ZoomPlan(s, times: times, mode: .none, maxZoom: 2, fps: 30).zoom, Array(repeating: 1, count: 90))
    }

    func testGridHoldsTheExactMapAtItsNodes() {
        let s = stabilisation { _ in 0.01 }
        let columns = (1279 + 15) / 16 + 1, rows = (719 + 15) / 16 + 1
        var grid = [Float](repeating: 0, count: 2 * columns * rows)
        grid.withUnsafeMutableBufferPointer { s.fillGrid(frame: 0, zoom: 1.1, cell: 16, columns: columns, rows: rows, into: $0.baseAddress!) }
        for (i, j) in [(0, 0), (5, 7), (columns - 1, rows - 1)] {
            let p = s.source(x: Double(min(i * 16, 1279)), y: Double(min(j * 16, 719)), frame: 0, zoom: 1.1)!
            XCTAssertEqual(Double(grid[2 * (j * columns + i)]), p.x, accuracy: 1e-3)
            XCTAssertEqual(Double(grid[2 * (j * columns + i) + 1]), p.y, accuracy: 1e-3)
        }
    }

    /// The grid's row table (`RowTurns`) against `source`, node by node: a fisheye with a 28 ms
    /// rolling shutter on a camera shaking about a tilted axis (0.1 rad at 6 Hz: up to 216 degrees
    /// a second), a 1 kHz path.
    func testGridMatchesTheExactMapWithARollingShutter() {
        let t = (0...2000).map { Int64($0) * 1_000_000 }
        let axis = SIMD3(0.3, 0.9, 0.2) / SIMD3(0.3, 0.9, 0.2).length
        let camera = CameraPath(times: t, orientations: t.map { Quaternion(angle: 0.1 * sin(2 * .pi * 6 * Double($0) / 1e9), axis: axis) })
        let still = camera.with(t.map { _ in .identity })
        let fisheye = CameraLens(fx: 585, fy: 585, cx: 641.7, cy: 363.6, model: .opencvFisheye(k: [0.0426, 0.0362, -0.0338, 0.0125]))
        let s = Stabilisation(camera: camera, smoothed: still, lens: fisheye, width: 1280, height: 720, shutter: RollingShutter(readout: 0.028))
        let columns = (1279 + 15) / 16 + 1, rows = (719 + 15) / 16 + 1
        var grid = [Float](repeating: 0, count: 2 * columns * rows)
        var worst = 0.0
        for frame in [Int64(300_000_000), 733_333_333, 1_500_000_000] {
            grid.withUnsafeMutableBufferPointer { s.fillGrid(frame: frame, zoom: 1.2, cell: 16, columns: columns, rows: rows, into: $0.baseAddress!) }
            for j in 0..<rows {
                for i in 0..<columns {
                    let p = s.source(x: Double(min(i * 16, 1279)), y: Double(min(j * 16, 719)), frame: frame, zoom: 1.2)!
                    worst = max(worst, abs(Double(grid[2 * (j * columns + i)]) - p.x), abs(Double(grid[2 * (j * columns + i) + 1]) - p.y))
                }
            }
        }
        // The path is a slerp between 1 ms readings; the table is linear between bands 0.1 ms
        // apart, so across a reading it cuts the corner by about (change of rate) * 0.1 ms / 4:
        // 0.14 rad/s per ms here, 3.5e-6 rad, 0.002 px at 585 px (measured 0.0033).
        XCTAssertLessThan(worst, 0.01, "largest difference from the exact map, px")
    }
}
