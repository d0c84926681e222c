// swift-tools-version:6.1
import Foundation
import PackageDescription

// libFuzzer targets for Lockstep's parsers. Kept out of the main package because a fuzz target
// has no `main` of its own (libFuzzer brings it): build and run them with `scripts/fuzz`, which
// passes `-sanitize=fuzzer,address -parse-as-library`. One executable target per parser, named
// Fuzz<Name>, with its seed corpus in Corpus/<Name>/.
// SwiftPM names a path dependency after its folder, which is whatever the clone is called.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()
let lockstep = Target.Dependency.product(name: "Lockstep", package: root)

let package = Package(
    name: "lockstep-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "LibFuzzerDriver"),
        .executableTarget(name: "FuzzRational", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzTraceText", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzIIODCommand", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzIIODRequestDecoder", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzGPMF", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzCAMM", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzProvenance", dependencies: [lockstep, "LibFuzzerDriver"]),
    ]
)
