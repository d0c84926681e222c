import Compositor
import Foundation
import XCTest

@testable import Media

/// A scratch folder per test, the repository's fixtures, and the ffmpeg CLI as an outside
/// fixture maker.
class MediaTestCase: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-media-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    func fixture(_ name: String) -> String { MediaTestCase.root.appendingPathComponent("Fixtures/\(name)").path }
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// Runs the ffmpeg CLI (a fixture maker independent of Lockstep's writer).
    func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-nostdin", "-y"] + args
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw MediaError("ffmpeg \(args.joined(separator: " ")) failed") }
    }

    /// The error `body` throws, as a MediaError (fails the test otherwise).
    func mediaError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> MediaError? {
        do { try body() } catch let e as MediaError { return e } catch {
            XCTFail("not a MediaError: \(error)", file: file, line: line); return nil
        }
        XCTFail("no error", file: file, line: line)
        return nil
    }

    /// Decodes every picture of `path`; the damage the reader reported.
    @discardableResult
    func readAll(_ path: String, conceal: Bool = false) throws -> (frames: Int, damage: [Damage], flagged: [Int]) {
        let reader = try MovieReader(path: path, audio: true, conceal: conceal)
        let frame = Frame()
        var frames = 0, flagged: [Int] = []
        while true {
            switch try reader.next(into: frame, audioSink: { _ in }) {
            case .video(let p): if p.damaged { flagged.append(p.source.index) }; frames += 1
            case .audio: continue
            case .end: return (frames, reader.damage, flagged)
            }
        }
    }

    /// A movie written by Lockstep's own writer: `frames` grey pictures getting lighter.
    func writeMovie(_ path: String, frames: Int = 30, size: Size = Size(width: 64, height: 48)) throws {
        // A keyframe every 30 frames: with no scene-cut keyframes (fixed GOPs) a 90-frame movie
        // would otherwise be one I-frame and P/B-frames, and corrupted bytes might miss it.
        var settings = EncodeSettings()
        settings.gop = 30
        let writer = try MovieWriter(
            path: path, container: "mp4", canvas: size, frameRate: Rational(30, 1),
            settings: settings, withAudio: false)
        let frame = try Frame(width: size.width, height: size.height)
        for k in 0..<frames {
            try frame.makeWritable()
            frame.withImage { image in
                PlaneKernels.fill(image, YUVColor(y: UInt8(40 + k * 3 % 180), u: 128, v: 128))
                // Detail, so P-frames carry residual a corruption can hit.
                for y in 0..<image.height { for x in 0..<image.width where (x * 7 + y * 3 + k) % 5 == 0 { image.y[x, y] = UInt8((x * y + k * 11) & 255) } }
            }
            try writer.writeVideo(frame, index: Int64(k))
        }
        try writer.finish()
    }
}
