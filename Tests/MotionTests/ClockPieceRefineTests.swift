import XCTest

@testable import Motion

/// GyroSync.refinePieces refines each clock piece's intercept over the frames its own sync
/// windows vouch for: a jump placed a little late must not pull the piece before it (the frames
/// between the true and the placed jump follow the other clock, 50 ms off).
final class ClockPieceRefineTests: XCTestCase {
    func testAJumpPlacedLateDoesNotPullThePieceBeforeIt() throws {
        var rig = SyntheticRig()
        rig.seconds = 10
        rig.clock = ClockMapping(pieces: [.init(fromVideoS: 0, offsetMs: 143), .init(fromVideoS: 4, offsetMs: 93)])
        let (shifts, readings) = rig.make()
        let series = SyncSeries(shifts)
        let gyro = GyroIntegral(readings, bias: rig.bias)
        let mapping = try XCTUnwrap(SignedPermutation(rig.mapping))
        // The windows' fit: each side half a millisecond off, the jump placed 0.3 s late; the
        // windows on the lines end at 3 s (before) and start at 5 s (after).
        let placed = ClockMapping(pieces: [.init(fromVideoS: 0, offsetMs: 142.5), .init(fromVideoS: 4.3, offsetMs: 93.5)])
        let refined = GyroSync.refinePieces(series, gyro: gyro, mapping: mapping, clock: placed, trusted: [-Double.infinity...3, 5...Double.infinity])
        XCTAssertEqual(refined.pieces[0].offsetMs, 143, accuracy: 0.2, "before the jump")
        XCTAssertEqual(refined.pieces[1].offsetMs, 93, accuracy: 0.2, "after the jump")
        XCTAssertEqual(refined.pieces[1].fromVideoS, 4.3, "the jump's time is held")
    }
}
