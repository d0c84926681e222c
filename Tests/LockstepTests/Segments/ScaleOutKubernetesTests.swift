import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `--emit k8s` on paper: the manifests parse as YAML (PyYAML, an outside parser) and hold what
/// the Indexed Job API requires (batch/v1 Job, completionMode Indexed, completions, a pod
/// template whose restartPolicy is Never or OnFailure, a container with an image).
final class ScaleOutKubernetesTests: ScratchFolderTestCase {
    /// The YAML documents of `text`, as JSON objects, parsed by python3's yaml.safe_load_all.
    func parse(_ text: String) throws -> [[String: Any]] {
        let file = try self.file("manifest.yaml", text)
        let script = "import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]))"
        let out = try Processes.check("python3", ["-c", script, file])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: out) as? [[String: Any]])
    }

    func testIndexedJobAndJoinJobHoldTheRequiredFields() throws {
        let plan = try ScaleOutPlan(
            lockstep: "/usr/local/bin/lockstep", arguments: ["--blend", "quad", "a.mp4", "b \"c\".mp4"],
            output: "/shared/renders/Final Cut: v2.mp4", workingDirectory: "/shared/in", totalFrames: 1000, gop: 50, segments: 6)
        let settings = KubernetesSettings(image: "registry.example/lockstep:1.0", volumeClaim: "renders")
        let docs = try parse(plan.kubernetesSegmentsJob(settings, parallelism: 3) + "---\n" + plan.kubernetesJoinJob(settings))
        XCTAssertEqual(docs.count, 2)
        let segments = docs[0], join = docs[1]
        for job in docs {
            XCTAssertEqual(job["apiVersion"] as? String, "batch/v1")
            XCTAssertEqual(job["kind"] as? String, "Job")
            let name = try XCTUnwrap((job["metadata"] as? [String: Any])?["name"] as? String)
            XCTAssertNotNil(name.range(of: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", options: .regularExpression), name)
            XCTAssertLessThanOrEqual(name.count, 63)
            let pod = try XCTUnwrap(((job["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
            XCTAssertTrue(["Never", "OnFailure"].contains(pod["restartPolicy"] as? String ?? ""))
            let container = try XCTUnwrap((pod["containers"] as? [[String: Any]])?.first)
            XCTAssertEqual(container["image"] as? String, "registry.example/lockstep:1.0")
            XCTAssertEqual(container["workingDir"] as? String, "/shared/in")
            let mount = try XCTUnwrap((container["volumeMounts"] as? [[String: Any]])?.first)
            XCTAssertEqual(mount["mountPath"] as? String, "/shared/renders")
            let claim = (((pod["volumes"] as? [[String: Any]])?.first)?["persistentVolumeClaim"] as? [String: Any])?["claimName"] as? String
            XCTAssertEqual(claim, "renders")
        }
        let spec = try XCTUnwrap(segments["spec"] as? [String: Any])
        XCTAssertEqual(spec["completionMode"] as? String, "Indexed")
        XCTAssertEqual(spec["completions"] as? Int, 6)
        XCTAssertEqual(spec["parallelism"] as? Int, 3)
        let segContainer = try XCTUnwrap(((((spec["template"] as? [String: Any])?["spec"] as? [String: Any])?["containers"]) as? [[String: Any]])?.first)
        XCTAssertEqual(segContainer["command"] as? [String], ["/bin/bash", "/shared/renders/.Final Cut: v2.mp4.lockstep-work/segment.sh"])
        let joinSpec = try XCTUnwrap(join["spec"] as? [String: Any])
        XCTAssertNil(joinSpec["completionMode"])
        let joinContainer = try XCTUnwrap(((((joinSpec["template"] as? [String: Any])?["spec"] as? [String: Any])?["containers"]) as? [[String: Any]])?.first)
        XCTAssertEqual(joinContainer["command"] as? [String], ["lockstep", "join-segments", "/shared/renders/.Final Cut: v2.mp4.lockstep-work"])

        // The segment script picks its segment from JOB_COMPLETION_INDEX when Slurm's variable is absent.
        let script = try file("segment.sh", plan.segmentScript(indices: Array(0..<6), slurm: SlurmSettings()))
        let shown = try Processes.run("/usr/bin/env", ["-i", "JOB_COMPLETION_INDEX=4", "LOCKSTEP=/bin/echo", "/bin/bash", script])
        XCTAssertEqual(
            String(decoding: shown.stdout, as: UTF8.self),
            "composite --blend quad a.mp4 b \"c\".mp4 --frames 650:800 --audio-codec flac -o /shared/renders/.Final Cut: v2.mp4.lockstep-work/seg-0004.mkv\n")
        let readme = plan.kubernetesReadme(segmentsFile: "/w/s.yaml", joinFile: "/w/j.yaml")
        XCTAssertTrue(readme.contains("kubectl wait --for=condition=complete --timeout=24h job/lockstep-final-cut-v2-segments\n"), readme)
    }
}
