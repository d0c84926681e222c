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
}
