import Compositor
import XCTest

/// Numbers from users and files that used to trap or mislead: each case of issue 9 that the pure
/// core answers.
final class RationalParsingHardeningTests: XCTestCase {
    func testTheFuzzerFindingAndOtherOverflowsAreNil() {
        // Found by Fuzz/Sources/FuzzRational: 201001753010175 * 10^7 overflows Int64 (trapped).
        XCTAssertNil(Rational(parsing: "201001753010175.3013013"))
        XCTAssertNil(Rational(parsing: "9223372036854775807.5"))
        XCTAssertNil(Rational(parsing: "0.1234567890123456789"))  // 19 digits: 10^19 does not fit
        XCTAssertNil(Rational(parsing: "-9223372036854775808"))  // Int64.min: its negation traps
        XCTAssertNil(Rational(parsing: "-9223372036854775808/-1"))
        XCTAssertNil(Rational(parsing: "1/-9223372036854775808"))
        XCTAssertNil(Rational(parsing: "99999999999999999999"))
    }

    func testDecimalsAreReadAsWritten() {
        XCTAssertEqual(Rational(parsing: "-0.5"), Rational(-1, 2), "the sign of a decimal under 1 was lost")
        XCTAssertEqual(Rational(parsing: "+29.97"), Rational(2997, 100))
        XCTAssertEqual(Rational(parsing: "1.50000000000000000000000"), Rational(3, 2))
        XCTAssertEqual(Rational(parsing: "9223372036854775807/1"), Rational(Int64.max, 1))
        XCTAssertEqual(Rational(parsing: "30/-1"), Rational(-30, 1))
        for bad in ["1.+5", "1.-5", "--1.5", ".5", "5.", "1.5.5", "1/2/3", "", "/", " 1", "1e3", "0x10", "٣.٣"] {
            XCTAssertNil(Rational(parsing: bad), bad)
        }
    }

    func testCheckedArithmeticIsNilWhereTheOperatorsWouldTrap() {
        let big = Rational(Int64.max, 1)
        XCTAssertNil(big.adding(Rational(1, 1)))
        XCTAssertNil(big.multiplied(by: 2))
        XCTAssertNil(Rational(1, Int64.max).multiplied(by: Rational(1, 3)))
        XCTAssertNil(Rational(-Int64.max, 1).subtracting(big))
        XCTAssertEqual(Rational(1, 2).adding(Rational(1, 3)), Rational(5, 6))
        XCTAssertEqual(big.subtracting(big), Rational(0, 1))
        XCTAssertEqual(Rational.exact(Int128(Int64.max) * 4, 4), big)
        XCTAssertNil(Rational.exact(1, 0))
    }
}

final class KeyColorAndWeightsHardeningTests: XCTestCase {
    func testAKeyColourIsExactlySixHexDigits() {
        XCTAssertNil(RGB(hex: "+12345"), "UInt32(radix:) takes a sign")
        XCTAssertNil(RGB(hex: "-12345"))
        XCTAssertNil(RGB(hex: "#+12345"))
        XCTAssertNil(RGB(hex: "0x00FF"))
        XCTAssertNil(RGB(hex: "00FF0"))
        XCTAssertNil(RGB(hex: "00FF000"))
        XCTAssertNil(RGB(hex: "##00FF00"))
        XCTAssertEqual(RGB(hex: "#00ff00"), RGB(r: 0, g: 255, b: 0))
        XCTAssertEqual(RGB(hex: "12AB3c"), RGB(r: 0x12, g: 0xAB, b: 0x3C))
    }

    func testHugeWeightsAreNormalisedWithoutOverflow() {
        // 1e308 + 1e308 is infinite: every share was 0 and the mix almost black.
        XCTAssertEqual(PlaneKernels.fixedPointWeights([1e308, 1e308]), [128, 128])
        XCTAssertEqual(PlaneKernels.fixedPointWeights([1.7e308, 1.7e308, 1.7e308, 1.7e308]), [64, 64, 64, 64])
        XCTAssertEqual(PlaneKernels.fixedPointWeights([3e307, 1e307]), [192, 64])
        XCTAssertEqual(PlaneKernels.fixedPointWeights([Double.leastNonzeroMagnitude, 0]), [256, 0])
    }
}

final class FrameSyncBackwardJumpTests: XCTestCase {
    /// 60 frames at 30 fps whose timestamps restart at frame 30 (two recordings joined).
    func testTimeSyncEndsAnInputAtABackwardJumpAndSaysWhere() {
        let tb = Rational(1, 90000)
        let pts: [Int64] = (0..<60).map { Int64($0 % 30) * 3000 }
        var sync = FrameSync<Int>(mode: .time, inputs: 1, frameRate: Rational(30, 1))
        var next = 0, emitted = 0, released: [Int] = []
        loop: while true {
            switch sync.step() {
            case .need(let i):
                if next < pts.count {
                    sync.push(SourceFrame(index: next, pts: Timestamp(pts[next], tb)), payload: next, input: i); next += 1
                } else {
                    sync.finish(input: i)
                }
            case .release(let p): released.append(p)
            case .emit: emitted += 1
            case .end: break loop
            }
        }
        while let p = sync.drain() { released.append(p) }
        XCTAssertEqual(emitted, 30, "the output ends at the jump")
        XCTAssertEqual(next, 31, "nothing is read past the refused frame")
        XCTAssertEqual(released.sorted(), Array(0...30), "every payload, the refused one included, comes back once")
        XCTAssertEqual(
            sync.backwardJumps,
            [
                .init(
                    input: 0, last: SourceFrame(index: 29, pts: Timestamp(87000, tb)),
                    refused: SourceFrame(index: 30, pts: Timestamp(0, tb)))
            ])
    }

    func testIndexSyncIgnoresTimestamps() {
        var sync = FrameSync<Int>(mode: .index, inputs: 1, frameRate: Rational(30, 1))
        var next = 0, emitted = 0
        loop: while true {
            switch sync.step() {
            case .need(let i):
                if next < 60 {
                    sync.push(SourceFrame(index: next, pts: Timestamp(Int64(next % 30), Rational(1, 30))), payload: next, input: i); next += 1
                } else {
                    sync.finish(input: i)
                }
            case .release: break
            case .emit: emitted += 1
            case .end: break loop
            }
        }
        XCTAssertEqual(emitted, 60)
        XCTAssertEqual(sync.backwardJumps, [])
    }
}
