import Compositor
import XCTest

/// The chain parser, the `.cube` parser and the switching schedule: exact messages, no I/O.
final class FilterSpecTests: XCTestCase {
    func message(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch { return "\(error)" }
    }

    func testChainParsesLeftToRightWithDefaults() throws {
        let c = try FilterChainSpec(parsing: "blur:radius=3,mono,lut:interp=tetrahedral:file=a.cube")
        XCTAssertEqual(c.filters.map(\.name), [.blur, .mono, .lut])
        XCTAssertEqual(c.filters[0].number("radius"), 3)
        XCTAssertEqual(c.filters[2].texts, ["file": "a.cube", "interp": "tetrahedral"])
        XCTAssertEqual(try FilterChainSpec(parsing: "vignette").filters[0].numbers, ["start": 0.5, "end": 1])
        XCTAssertEqual(try FilterChainSpec(parsing: "none"), .none)
    }

    func testBadChainsNameTheValidChoices() {
        XCTAssertEqual(
            message { _ = try FilterChainSpec(parsing: "mono,blurry") },
            "unknown filter \"blurry\"; valid filters: rosy, mono, sepia, invert, brightness, contrast, saturation, exposure, gamma, hue, posterize, vignette, pixellate, blur, sharpen, edges, lut.")
        XCTAssertEqual(
            message { _ = try FilterChainSpec(parsing: "sharpen:radius=1:sigma=2") },
            "filter sharpen has no parameter \"sigma\"; valid parameters: amount, radius.")
        XCTAssertEqual(message { _ = try FilterChainSpec(parsing: "mono:amount=1") }, "filter mono takes no parameters; got \"amount\".")
        XCTAssertEqual(
            message { _ = try FilterChainSpec(parsing: "blur:radius=100") },
            "filter blur: radius must be a number from 0.3 to 50; got \"100\".")
        XCTAssertEqual(
            message { _ = try FilterChainSpec(parsing: "posterize:levels=2.5") },
            "filter posterize: levels must be an integer from 2 to 64; got \"2.5\".")
        XCTAssertEqual(message { _ = try FilterChainSpec(parsing: "blur:radius") }, "filter blur: radius needs a value (radius=VALUE).")
        XCTAssertEqual(message { _ = try FilterChainSpec(parsing: "blur:radius=1:radius=2") }, "filter blur: radius is given twice.")
        XCTAssertEqual(
            message { _ = try FilterChainSpec(parsing: "lut:interp=cubic:file=a.cube") },
            "filter lut: interp must be one of trilinear, tetrahedral; got \"cubic\".")
        XCTAssertEqual(message { _ = try FilterChainSpec(parsing: "lut") }, "filter lut needs file=PATH.")
        XCTAssertEqual(message { _ = try FilterChainSpec(parsing: "mono,,invert") }, "\"mono,,invert\": an empty filter between commas.")
        XCTAssertEqual(message { _ = try FilterChainSpec(parsing: "") }, "the filter chain is empty; give NAME[:k=v...][,NAME...] or none.")
        XCTAssertEqual(
            message { _ = try FilterChainSpec(parsing: "blur:radius=nan") },
            "filter blur: radius must be a number from 0.3 to 50; got \"nan\".")
    }

    func testListingNamesEveryPresetAndParameter() {
        let text = FilterChainSpec.listing
        for n in FilterName.allCases { XCTAssertTrue(text.contains("\n\(n.rawValue) ") || text.hasPrefix("\(n.rawValue) "), n.rawValue) }
        XCTAssertTrue(text.contains("radius=2 (0.3 to 50)"))
        XCTAssertTrue(text.contains("file=PATH (required), interp=trilinear (trilinear|tetrahedral)"))
    }

    func testCubeParsesAndMalformedFilesNameTheLine() throws {
        let good =
            "# made by hand\nTITLE \"x\"\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\n\n"
            + "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"
        let lut = try CubeLUT(parsing: good, name: "id.cube")
        XCTAssertEqual(lut.size, 2)
        XCTAssertEqual(lut.lookup(SIMD3(0.2, 0.4, 0.6), .trilinear), SIMD3(0.2, 0.4, 0.6))
        XCTAssertEqual(
            message { _ = try CubeLUT(parsing: "LUT_3D_SIZE 2\n0 0 0\n1 0 x\n", name: "a.cube") },
            "a.cube:3: a table line needs three numbers; got \"1 0 x\"")
        XCTAssertEqual(
            message { _ = try CubeLUT(parsing: "LUT_3D_SIZE 2\n0 0 0\n", name: "a.cube") },
            "a.cube:3: the table ends after 1 of 8 lines (LUT_3D_SIZE 2)")
        XCTAssertEqual(message { _ = try CubeLUT(parsing: "0 0 0\n", name: "a.cube") }, "a.cube:1: a table line before LUT_3D_SIZE")
        XCTAssertEqual(
            message { _ = try CubeLUT(parsing: "LUT_3D_SIZE 1\n", name: "a.cube") },
            "a.cube:1: LUT_3D_SIZE must be an integer from 2 to 256; got \"1\"")
        XCTAssertEqual(
            message { _ = try CubeLUT(parsing: "LUT_1D_SIZE 4\n", name: "a.cube") },
            "a.cube:1: a 1D LUT; only 3D LUTs (LUT_3D_SIZE) are supported")
        XCTAssertEqual(message { _ = try CubeLUT(parsing: "LUT_3D_SIZE 2\nGAMMA 2\n", name: "a.cube") }, "a.cube:2: unknown keyword \"GAMMA\"")
        XCTAssertEqual(message { _ = try CubeLUT(parsing: "hello", name: "a.cube") }, "a.cube:1: unknown keyword \"hello\"")
        XCTAssertEqual(message { _ = try CubeLUT(parsing: good + "0 0 0\n", name: "a.cube") }, "a.cube:15: more than 8 table lines (LUT_3D_SIZE 2)")
    }

    func testScheduleParsesAndRefusesOrderAndEndWithTheEntry() throws {
        let s = try FilterSchedule(initial: .none, parsing: "1=invert;1.5=mono;2.5=none")
        XCTAssertEqual(s.entries.map(\.time), [Rational(1, 1), Rational(3, 2), Rational(5, 2)])
        XCTAssertNil(s.entryIndex(at: Rational(29, 30)))
        XCTAssertEqual(s.entryIndex(at: Rational(1, 1)), 0)
        XCTAssertEqual(s.entryIndex(at: Rational(3, 1)), 2)
        XCTAssertEqual(
            message { _ = try FilterSchedule(initial: .none, parsing: "1=invert;0.5=mono") },
            "--filter-at entry 2 (\"0.5=mono\"): 0.5 s is not after entry 1's 1 s; times must increase.")
        XCTAssertEqual(
            message { _ = try FilterSchedule(initial: .none, parsing: "1=invert;1=mono") },
            "--filter-at entry 2 (\"1=mono\"): 1 s is not after entry 1's 1 s; times must increase.")
        XCTAssertEqual(
            message { _ = try FilterSchedule(initial: .none, parsing: "1=invert;mono") },
            "--filter-at entry 2 (\"mono\"): expected T=CHAIN, T in seconds of output time.")
        XCTAssertEqual(
            message { _ = try FilterSchedule(initial: .none, parsing: "-1=invert") },
            "--filter-at entry 1 (\"-1=invert\"): \"-1\" is not a time in seconds (0 or more).")
        XCTAssertEqual(
            message { _ = try FilterSchedule(initial: .none, parsing: "1=inver") },
            "--filter-at entry 1 (\"1=inver\"): unknown filter \"inver\"; valid filters: rosy, mono, sepia, invert, brightness, contrast, saturation, exposure, gamma, hue, posterize, vignette, pixellate, blur, sharpen, edges, lut."
        )
        // 90 frames at 30 fps: the last is at 2.967 s.
        XCTAssertNoThrow(try s.check(frames: 90, frameRate: Rational(30, 1)))
        let late = try FilterSchedule(initial: .none, parsing: "1=invert;2.9=mono;3=none")
        XCTAssertEqual(
            message { try late.check(frames: 90, frameRate: Rational(30, 1)) },
            "--filter-at entry 3 (\"3=none\"): no output frame is at or after 3 s; the output has 90 frames, the last at 2.967 s.")
    }

    func testSwitcherSwitchesAtTheFirstFrameAtOrAfterEachTime() throws {
        // At 10 fps: 0.1 is frame 1 exactly; 0.25 is frame 3 (0.3); 0.3 again frame 3, so 0.25's
        // chain is never shown; 0.4 frame 4, one frame after.
        let s = try FilterSchedule(initial: try FilterChainSpec(parsing: "mono"), parsing: "0.1=invert;0.25=blur;0.3=mono;0.4=invert")
        let sw = try FilterSwitcher(schedule: s, format: FilterFormat(width: 4, height: 4), retainedBufferHint: 2, loadLUT: { _ in fatalError() })
        let names = (0..<6).map { sw.chain(forFrame: Int64($0), at: Rational(Int64($0), 10)).name }
        XCTAssertEqual(names, ["mono", "invert", "invert", "mono", "invert", "invert"])
        XCTAssertEqual(sw.switches.map(\.frame), [0, 1, 3, 4])
        XCTAssertEqual(sw.switches.map(\.text), ["mono", "invert", "mono", "invert"])
        // As a job's schedule, the entry the next one hides is refused by name.
        XCTAssertEqual(
            message { try s.check(frames: 6, frameRate: Rational(10, 1)) },
            "--filter-at entry 2 (\"0.25=blur\") is never in force: entry 3 (\"0.3=mono\") starts at the same output frame, 3 (at 10 fps).")
        XCTAssertNoThrow(try FilterSchedule(initial: .none, parsing: "0.1=invert;0.2=mono").check(frames: 6, frameRate: Rational(10, 1)))
    }
}
