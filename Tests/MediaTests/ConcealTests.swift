import Compositor
import Foundation
import XCTest

@testable import Media

/// A few corrupted bytes in the middle of an H.264 input: by default an error naming the file
/// and where; under `conceal` the read goes on and names every damaged frame.
final class ConcealTests: MediaTestCase {
    /// A copy of `source` with up to `count` bytes inverted in the middle of the three largest
    /// video packets of its second half, found by ffprobe: inside coded pictures whatever the
    /// container's layout (where the moov, audio or SEI bytes fall).
    func corrupt(_ source: String, into target: String, count: Int = 200) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size", "-of", "csv=p=0", source]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let packets = text.split(separator: "\n").compactMap { line -> (pos: Int, size: Int)? in
            let f = line.split(separator: ",").compactMap { Int($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
        XCTAssertGreaterThan(packets.count, 10, "ffprobe lists the video packets of \(source)")
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        for packet in packets[(packets.count / 2)...].sorted(by: { $0.size > $1.size }).prefix(3) {
            let n = min(count, packet.size / 2)
            let at = packet.pos + (packet.size - n) / 2
            for i in at..<(at + n) { data[i] ^= 0xFF }
        }
        try data.write(to: URL(fileURLWithPath: target))
    }

    func check(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let bad = path("bad-" + (source as NSString).lastPathComponent)
        try corrupt(source, into: bad)
        let clean = try readAll(source)
        XCTAssertEqual(clean.damage, [], file: file, line: line)

        let e = mediaError({ try self.readAll(bad) }, file: file, line: line)
        XCTAssertEqual(e?.kind, .unreadable, file: file, line: line)
        XCTAssertTrue(e?.description.hasPrefix("\(bad): damaged video: ") ?? false, e?.description ?? "", file: file, line: line)
        XCTAssertTrue(e?.description.hasSuffix("--conceal goes on past damage") ?? false, e?.description ?? "", file: file, line: line)

        let concealed = try readAll(bad, conceal: true)
        XCTAssertFalse(concealed.damage.isEmpty, "the damage is named", file: file, line: line)
        XCTAssertEqual(concealed.damage.map(\.frame), concealed.flagged, "each damaged picture is flagged as delivered", file: file, line: line)
        XCTAssertGreaterThan(concealed.frames, clean.frames / 2, "goes on past the damage", file: file, line: line)
        for d in concealed.damage { XCTAssertTrue(d.description.hasPrefix("frame \(d.frame) ("), d.description, file: file, line: line) }
    }

    func testCorruptBytesInAnFFmpegMadeMovie() throws {
        let p = path("testsrc.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", p])
        try check(p)
    }

    func testCorruptBytesInALockstepMadeMovie() throws {
        let p = path("lockstep.mp4")
        try writeMovie(p, frames: 90, size: Size(width: 160, height: 120))
        try check(p)
    }
}
