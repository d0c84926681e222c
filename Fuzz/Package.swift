// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for Lockstep's parsers. Kept out of the main package because a fuzz target
// has no `main` of its own (libFuzzer brings it): build and run them with `scripts/tools/fuzz`, which
// passes `-sanitize=fuzzer,address -parse-as-library`. One executable target per parser, named
// Fuzz<Name>, with its seed corpus in Corpus/<Name>/.
// SwiftPM names a path dependency after its folder: `lockstep` is a committed symlink to `..`, so
// the name holds whatever the clone is called (a clone named `fuzz` clashed with this package).
// The parser modules only (Compositor, Motion, Verify, IIO): building against the whole Lockstep
// library compiled FFmpeg glue, GRDB and every job in release with ASan, which took most of an hour here.
let lockstep = Target.Dependency.product(name: "LockstepParsers", package: "lockstep")

let package = Package(
    name: "lockstep-fuzz",
    dependencies: [.package(path: "lockstep")],
    targets: [
        .target(name: "LibFuzzerDriver"),
        .executableTarget(name: "FuzzRational", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzTraceText", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzIIODCommand", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzIIODRequestDecoder", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzGPMF", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzCAMM", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzBlackbox", dependencies: [lockstep, "LibFuzzerDriver"]),
        .executableTarget(name: "FuzzProvenance", dependencies: [lockstep, "LibFuzzerDriver"]),
    ]
)
