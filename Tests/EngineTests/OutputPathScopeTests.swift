import Foundation
import TestSupport
import XCTest

@testable import Engine

/// `OutputPath.writing`: the file lands under the output's name when the body returns and
/// nothing does when it throws; a file the user had there is replaced only by a finished one.
final class OutputPathScopeTests: ScratchFolderTestCase {
    private struct Broke: Error, Equatable {}

    private func contents(_ name: String) throws -> String {
        try String(contentsOf: scratch.appendingPathComponent(name), encoding: .utf8)
    }

    func testReturningMovesTheFileIntoPlaceAndGivesTheBodysValue() throws {
        let out = scratch.appendingPathComponent("o.txt").path
        var seen = ""
        let value = try OutputPath.writing(to: out) { file -> Int in
            seen = file.path
            try file.writeAll(Data("new".utf8))
            // While the body runs, only the hidden temporary exists.
            XCTAssertEqual(try leftovers(), [(file.path as NSString).lastPathComponent])
            return 7
        }
        XCTAssertEqual(value, 7)
        XCTAssertNotEqual(seen, out)
        XCTAssertEqual(try leftovers(), ["o.txt"])
        XCTAssertEqual(try contents("o.txt"), "new")
    }

    func testThrowingLeavesNothingAndKeepsWhatTheUserHad() throws {
        let out = scratch.appendingPathComponent("o.txt").path
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out))
        XCTAssertThrowsError(
            try OutputPath.writing(to: out) { file in
                try file.writeAll(Data("half".utf8))
                throw Broke()
            }
        ) { XCTAssertEqual($0 as? Broke, Broke()) }
        XCTAssertEqual(try leftovers(), ["o.txt"])
        XCTAssertEqual(try contents("o.txt"), "mine")
    }

    func testAnErrorNamingTheTemporaryNamesTheOutput() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        XCTAssertThrowsError(try OutputPath.writing(to: out) { file in throw JobError("\(file.path): disk full") }) {
            XCTAssertEqual("\($0)", "\(out): disk full")
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testLandingWhereNothingIsKeepsAFileMadeMeanwhile() throws {
        let out = scratch.appendingPathComponent("s.sqlite").path
        XCTAssertThrowsError(
            try OutputPath.writing(to: out, landing: .whereNothingIs) { file in
                try file.writeAll(Data("ours".utf8))
                try Data("theirs".utf8).write(to: URL(fileURLWithPath: out))  // made while we wrote
            }
        ) { error in
            let taken = error as? OutputPath.NameTaken
            XCTAssertEqual(taken?.code, EEXIST)
            XCTAssertEqual(taken?.output, out)
        }
        XCTAssertEqual(try leftovers(), ["s.sqlite"])
        XCTAssertEqual(try contents("s.sqlite"), "theirs")
        // Where nothing is, it lands.
        let other = scratch.appendingPathComponent("t.sqlite").path
        try OutputPath.writing(to: other, landing: .whereNothingIs) { try $0.writeAll(Data("ours".utf8)) }
        XCTAssertEqual(try leftovers(), ["s.sqlite", "t.sqlite"])
        XCTAssertEqual(try contents("t.sqlite"), "ours")
    }

    func testEachOutputIsKeptOrDroppedOnItsOwn() throws {
        let names = ["a.txt", "b.txt", "c.txt"]
        let fifo = scratch.appendingPathComponent("d.txt").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let outputs = (names + ["d.txt"]).map { scratch.appendingPathComponent($0).path }
        var reserved: [String] = []
        let written = try OutputPath.writing(toEach: outputs) { files -> (value: String, keep: [Bool]) in
            for case .success(let f) in files { try f.writeAll(Data((f.output as NSString).lastPathComponent.utf8)) }
            reserved = files.map { (try? $0.get()) == nil ? "refused" : "reserved" }
            return ("done", [true, false, true, true])
        }
        // A FIFO under a name is refused before any work, and that output alone fails.
        XCTAssertEqual(reserved, ["reserved", "reserved", "reserved", "refused"])
        XCTAssertEqual(written.value, "done")
        XCTAssertEqual(written.failures.map { $0 == nil }, [true, true, true, true])
        XCTAssertEqual(try leftovers(), ["a.txt", "c.txt", "d.txt"])
        XCTAssertEqual(try contents("c.txt"), "c.txt")
        // A throw drops every one.
        XCTAssertThrowsError(
            try OutputPath.writing(toEach: [scratch.appendingPathComponent("e.txt").path]) { files -> (value: Int, keep: [Bool]) in
                for case .success(let f) in files { try f.writeAll(Data("e".utf8)) }
                throw Broke()
            })
        XCTAssertEqual(try leftovers(), ["a.txt", "c.txt", "d.txt"])
    }
}
