import Compositor
import Foundation
import Glibc
import XCTest

@testable import Media

/// The same pictures through `MovieWriter` give the same bytes whatever the heap held before.
/// Debian 12's x264 with MB-tree (x264's default, which Lockstep turns off) read lookahead
/// buffers it never wrote: glibc's M_PERTURB, which fills every new allocation with one byte,
/// changed its pictures from the first frame on this very input (bg.mp4), as the leftovers of
/// earlier jobs did in a long-lived process (issue 27's flaky variants test).
final class EncoderRepeatabilityTests: MediaTestCase {
    /// bg.mp4's pictures, encoded as every Lockstep job encodes them; the file's bytes.
    func encodeBackground(to name: String) throws -> Data {
        let reader = try MovieReader(path: fixture("bg.mp4"), audio: false)
        let size = reader.video.displaySize
        let writer = try MovieWriter(
            path: path(name), container: "mp4", canvas: size, frameRate: Rational(30, 1),
            settings: EncodeSettings(), withAudio: false)
        let frame = Frame()
        var index: Int64 = 0
        loop: while true {
            switch try reader.next(into: frame, audioSink: { _ in }) {
            case .video:
                try writer.writeVideo(frame, index: index)
                index += 1
            case .audio: continue
            case .end: break loop
            }
        }
        try writer.finish()
        XCTAssertEqual(index, 90)
        return try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }

    /// glibc's mallopt and its M_PERTURB (malloc.h, which the Glibc module does not bring in).
    static let mallopt = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")
        .map { unsafeBitCast($0, to: (@convention(c) (Int32, Int32) -> Int32).self) }
    static let perturb: Int32 = -6

    func testTheSameFramesGiveTheSameBytesWhateverTheHeapHeld() throws {
        let plain = try encodeBackground(to: "plain.mp4")
        // Every allocation from here on filled with 0xfe (the perturb byte 1, inverted), every
        // freed block with 0x01. ASan's mallopt refuses (returns 0): skipped there. TSan's takes
        // the call, but its own allocator need not fill anything: there the two encodes are
        // compared as they come. The plain run is where the perturbation is sure.
        let mallopt = try XCTUnwrap(Self.mallopt, "glibc's mallopt")
        try XCTSkipUnless(mallopt(Self.perturb, 1) == 1, "this process's allocator ignores M_PERTURB (a sanitizer's); the plain run checks this")
        defer { _ = mallopt(Self.perturb, 0) }
        let perturbed = try encodeBackground(to: "perturbed.mp4")
        XCTAssertEqual(plain.count, perturbed.count, "file sizes")
        XCTAssertTrue(plain == perturbed, "the same pictures gave another bitstream after the heap was filled with 0xfe")
    }
}
