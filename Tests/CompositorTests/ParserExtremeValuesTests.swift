import Compositor
import XCTest

/// A property test over extreme values for each parser of Compositor (issue 26): whatever the
/// text, a value or an error, never a trap; values that come out are in range.
final class ParserExtremeValuesTests: XCTestCase {
    /// Numbers at and past every edge a parser meets.
    static let numbers = [
        "0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
        "2147483647", "2147483648", "-2147483649", "4294967296", "1e308", "-1e308", "1e309", "1e-308", "4.9e-324",
        "nan", "NaN", "-nan", "inf", "-inf", "infinity", "0x10", "1_000", "", " ", "+", "-", ".", "1.", ".5",
        "99999999999999999999999999999999", "0.000000000000000000001", "1/0", "0/0", "1/-0", "\u{0}", "٣"
    ]

    static var texts: [String] {
        var all = numbers
        for a in numbers.prefix(20) { for b in numbers.prefix(20) { all.append("\(a)/\(b)") } }
        return all
    }

    func testRationalParsingNeverTrapsAndKeepsItsParts() {
        var parsed = 0
        for t in Self.texts {
            guard let r = Rational(parsing: t) else { continue }
            parsed += 1
            XCTAssertNotEqual(r.den, 0, t)
            XCTAssertGreaterThan(r.den, 0, t)
            XCTAssertNotEqual(r.num, .min, t)
            _ = r.fitsInt32
            _ = r.seconds
        }
        XCTAssertGreaterThan(parsed, 50)
        XCTAssertFalse(Rational(parsing: "4294967296/4294967295")!.fitsInt32)
        XCTAssertTrue(Rational(parsing: "30000/1001")!.fitsInt32)
        XCTAssertFalse(Rational(parsing: "1/2147483648")!.fitsInt32)
    }

    func testFilterChainsWithExtremeParametersAreValuesOrSentences() {
        let names = [
            "blur:radius", "pixellate:size", "posterize:levels", "hue:degrees", "gamma:gamma", "sharpen:amount", "sharpen:radius",
            "vignette:start", "exposure:ev", "sepia:intensity"
        ]
        for name in names {
            for v in Self.numbers {
                do {
                    let chain = try FilterChainSpec(parsing: "\(name)=\(v)")
                    for f in chain.filters { for value in f.numbers.values { XCTAssertTrue(value.isFinite, "\(name)=\(v)") } }
                } catch let e as FilterError {
                    XCTAssertFalse(e.description.isEmpty)
                    XCTAssertFalse(e.description.contains("\n"), "\(name)=\(v): one line")
                } catch {
                    XCTFail("\(name)=\(v): \(error)")
                }
            }
        }
    }

    func testCubeFilesWithExtremeNumbersAreValuesOrSentences() {
        let ident = ["0 0 0", "1 0 0", "0 1 0", "1 1 0", "0 0 1", "1 0 1", "0 1 1", "1 1 1"]
        for v in Self.numbers {
            for text in [
                "LUT_3D_SIZE \(v)\n" + ident.joined(separator: "\n"),
                "LUT_3D_SIZE 2\n" + ident.dropFirst().joined(separator: "\n") + "\n\(v) \(v) \(v)",
                "DOMAIN_MIN \(v) 0 0\nDOMAIN_MAX 1 1 1\nLUT_3D_SIZE 2\n" + ident.joined(separator: "\n")
            ] {
                do {
                    let lut = try CubeLUT(parsing: text, name: "x.cube")
                    let c = lut.lookup(SIMD3(0.5, 0.5, 0.5), .trilinear)
                    XCTAssertTrue(c.x.isFinite && c.y.isFinite && c.z.isFinite, v)
                } catch {
                    XCTAssertFalse("\(error)".contains("\n"), v)
                }
            }
        }
    }
}
