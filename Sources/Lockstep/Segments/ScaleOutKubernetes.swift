import Foundation

/// Where the Kubernetes Jobs find lockstep and the shared files.
public struct KubernetesSettings: Codable, Equatable, Sendable {
    /// A container image with `lockstep` on its PATH.
    public var image: String
    /// A PersistentVolumeClaim (ReadWriteMany) holding the output folder and the inputs; mounted
    /// at the output folder's path, so the plan's absolute paths are the same in every pod.
    public var volumeClaim: String
    public init(image: String = "lockstep:latest", volumeClaim: String = "lockstep-shared") {
        self.image = image; self.volumeClaim = volumeClaim
    }
}

/// `--emit k8s`: the same plan as Slurm's, as two Jobs. Kubernetes has no `afterok` between
/// Jobs, so the join Job is created only after the segments' Indexed Job is complete (the
/// README written beside the manifests says how). Pure: YAML text (strings in JSON's quoted
/// form, which is YAML).
extension ScaleOutPlan {
    /// A DNS-1123 name from the output's file name: lower case, digits and '-', at most 40
    /// characters, so `-segments`/`-join` and Kubernetes' pod suffixes stay within 63.
    public var jobBaseName: String {
        let name = (URL(fileURLWithPath: output).lastPathComponent as NSString).deletingPathExtension.lowercased()
        var s = String(name.map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "-" })
        while s.contains("--") { s = s.replacingOccurrences(of: "--", with: "-") }
        s = String(s.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(31)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return "lockstep-" + (s.isEmpty ? "render" : s)
    }

    static func yaml(_ s: String) -> String {
        let data = (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }

    private func podSpec(container: String, command: [String], settings: KubernetesSettings, indent: String) -> String {
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        return [
            "restartPolicy: Never",
            "containers:",
            "- name: \(container)",
            "  image: \(Self.yaml(settings.image))",
            "  workingDir: \(Self.yaml(workingDirectory))",
            "  command: [\(command.map(Self.yaml).joined(separator: ", "))]",
            "  env:",
            "  - name: LOCKSTEP",
            "    value: \"lockstep\"",
            "  volumeMounts:",
            "  - name: shared",
            "    mountPath: \(Self.yaml(folder))",
            "volumes:",
            "- name: shared",
            "  persistentVolumeClaim:",
            "    claimName: \(Self.yaml(settings.volumeClaim))"
        ].map { indent + $0 + "\n" }.joined()
    }

    /// A Job: its `spec` fields (one "key: value" a line), then the pod template.
    private func job(_ name: String, about: String, spec: [String], container: String, command: [String], settings: KubernetesSettings) -> String {
        var s = "# Lockstep scale-out of \(Self.comment(output)): \(about)\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: \(name)\nspec:\n"
        for field in spec { s += "  \(field)\n" }
        s += "  template:\n"
        s += "    spec:\n"
        return s + podSpec(container: container, command: command, settings: settings, indent: "      ")
    }

    /// The segments as one Indexed Job: pod i gets `JOB_COMPLETION_INDEX=i` and runs the same
    /// `segment.sh` the Slurm array runs. A failed index is retried with the same index.
    public func kubernetesSegmentsJob(_ settings: KubernetesSettings, parallelism: Int? = nil) -> String {
        job(
            "\(jobBaseName)-segments", about: "\(segments.count) segment renders (frames \(segments.map(\.description).joined(separator: ", "))).",
            spec: [
                "completionMode: Indexed", "completions: \(segments.count)", "parallelism: \(parallelism ?? segments.count)",
                "backoffLimit: \(3 * segments.count)"
            ],
            container: "segment", command: ["/bin/bash", segmentScriptFile], settings: settings)
    }

    /// The join as a plain Job (one pod), to create after the segments' Job is complete.
    public func kubernetesJoinJob(_ settings: KubernetesSettings) -> String {
        job(
            "\(jobBaseName)-join", about: "the join. Create it only after \(jobBaseName)-segments is complete.",
            spec: ["completions: 1", "backoffLimit: 0"],
            container: "join", command: ["lockstep", "join-segments", work], settings: settings)
    }

    /// How to run the two Jobs, written beside them.
    public func kubernetesReadme(segmentsFile: String, joinFile: String) -> String {
        """
        Lockstep scale-out of \(output) on Kubernetes: \(segments.count) segments, then one join.

        Kubernetes has no afterok between Jobs: start the join only once every segment is done.

          kubectl apply -f \(ScaleOutPlan.shellQuote(segmentsFile))
          kubectl wait --for=condition=complete --timeout=24h job/\(jobBaseName)-segments
          kubectl apply -f \(ScaleOutPlan.shellQuote(joinFile))
          kubectl wait --for=condition=complete --timeout=1h job/\(jobBaseName)-join

        If a segment keeps failing, the segments' Job fails (condition=failed) and the join must not
        be started. Each segment pod runs \(segmentScriptFile) with JOB_COMPLETION_INDEX as its
        segment number; the PersistentVolumeClaim is mounted at the output's folder, so the inputs
        must be on that volume too (or named by paths that exist inside the image).

        """
    }
}
