import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// The one job shape's promise (`Job`), held by every job that writes or reads files: cancelled
/// before `run()`, a job ends at once with a failure (never a result), and nothing is left
/// under its output's name. The same jobs run to the end when not cancelled, so each case can
/// fail both ways. (`imu record` and `imu serve` need a device or a port: RecorderTests and
/// IMUServeCommandTests stop them from another thread.)
final class JobContractTests: ScratchTestCase {
    /// `make` builds the job on `output`; the job is run twice, cancelled first and then not.
    func assertCancelledFirstEndsAtOnce<J: Job>(_ name: String, output: String, _ make: (String) -> J, file: StaticString = #filePath, line: UInt = #line) throws {
        let cancelled = make(output)
        cancelled.cancel()
        let start = Date()
        XCTAssertThrowsError(try cancelled.run(), "\(name): a cancelled job returned a result", file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "\(name): a cancelled job went on working", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(name): \(output) exists after a cancelled run", file: file, line: line)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "\(name): temporaries left behind", file: file, line: line)

        XCTAssertNoThrow(try make(output).run(), "\(name): the same job, not cancelled, failed", file: file, line: line)
        if !output.isEmpty {
            XCTAssertTrue(FileManager.default.fileExists(atPath: output), "\(name): not cancelled, it wrote nothing", file: file, line: line)
        }
    }

    func out(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func testEveryJobCancelledBeforeItRunsEndsAtOnceAndLeavesNothing() throws {
        let fg = Repository.fixture("fg.mp4"), bg = Repository.fixture("bg.mp4"), q0 = Repository.fixture("q0.mp4"), q1 = Repository.fixture("q1.mp4")
        try assertCancelledFirstEndsAtOnce("composite", output: out("key.mp4")) { CompositeJob(options: CompositeOptions(inputs: [fg, bg], output: $0, blend: .chromakey)) }
        try assertCancelledFirstEndsAtOnce("concat", output: out("joined.mp4")) { ConcatJob(options: ConcatOptions(clips: [q0, q1], output: $0)) }
        try assertCancelledFirstEndsAtOnce("reverse", output: out("rev.mp4")) { ReverseJob(options: ReverseOptions(input: q0, output: $0)) }
        try assertCancelledFirstEndsAtOnce("thumbnail", output: out("t.png")) { ThumbnailJob(options: ThumbnailOptions(inputs: [q0], output: $0)) }
        try assertCancelledFirstEndsAtOnce("testsrc", output: out("src.mp4")) { o in
            var options = TestSourceOptions(output: o)
            options.duration = 1
            return TestSourceJob(options: options)
        }
        // Variants go into a folder of the user's: the first variant's file is the output looked at.
        let variants = FilterVariantsOptions(input: q0, folder: scratch.path, chains: [try FilterChainSpec(parsing: "mono")])
        try assertCancelledFirstEndsAtOnce("filter variants", output: variants.outputs[0]) { _ in FilterVariantsJob(options: variants) }
        try assertCancelledFirstEndsAtOnce("verify", output: "") { _ in VerifyJob(options: VerifyOptions(movie: q0)) }
        try assertCancelledFirstEndsAtOnce("verify --coded", output: "") { _ in CodedVerifyJob(options: CodedVerifyOptions(movie: self.out("src.mp4"))) }
        let hero = Repository.shared("gopro-hero7/hero7.mp4")
        try assertCancelledFirstEndsAtOnce("align", output: "") { _ in AlignJob(options: AlignOptions(inputs: [hero, hero])) }
        try assertCancelledFirstEndsAtOnce("calibrate", output: out("profile.json")) {
            CalibrateJob(options: CalibrateOptions(video: Repository.fixture("synthetic/pan.mp4"), imu: Repository.fixture("synthetic/pan-imu.csv"), output: $0))
        }
        let store = out("s.sqlite")
        try assertCancelledFirstEndsAtOnce("imu import", output: store) { IMUImportJob(options: IMUImportOptions(file: Repository.fixture("imu/shake.gcsv"), store: $0)) }
        try assertCancelledFirstEndsAtOnce("imu export", output: out("e.gcsv")) { IMUExportJob(options: IMUExportOptions(store: store, output: $0)) }
        try assertCancelledFirstEndsAtOnce("imu plot", output: out("p.svg")) { IMUPlotJob(options: IMUPlotOptions(path: store, output: $0)) }
        try assertCancelledFirstEndsAtOnce("imu info", output: "") { _ in IMUInfoJob(options: IMUInfoOptions(path: store)) }
        try assertCancelledFirstEndsAtOnce("imu bench-store", output: out("bench.sqlite")) { IMUStoreBench(options: .init(output: $0, samples: 1000, rate: 200, window: 1)) }
        // Last: its work folder (hidden, beside the output) stays, as a real scale-out's does.
        var request = ScaleOutRequest(
            composite: CompositeOptions(inputs: [fg, bg], output: out("scaled.mp4"), blend: .chromakey), arguments: ["--blend", "chromakey"], segments: 2,
            target: .kubernetes(KubernetesSettings()), lockstep: "/opt/lockstep/bin/lockstep")
        request.gopGiven = false  // the GOP is chosen so that the fixture's frames make 2 segments
        let manifests = try ScaleOutJob.makePlan(request).work + "/k8s-segments.yaml"
        try assertCancelledFirstEndsAtOnce("scale-out --emit k8s", output: manifests) { [request] _ in ScaleOutJob(options: request) }
    }
}
