// swift-tools-version:6.1
import PackageDescription

// Architecture, bottom up:
//   CFFmpeg, CAVFilter,    system libraries (pkg-config) with the few shims Swift cannot import
//   CIIO, CFFTW, CEBUR128
//   Spectral, Compositor,  the pure core: a complex FFT (FFTW's is Engine's); timestamps, sync
//   Motion, Verify,        policy, layout, blend kernels and effects, audio mix math; IMU
//   AudioAlign, SyncCode   parsing, fusion, synchronizer, calibration math; the checks of
//                          `verify`; sound alignment's math; the sync kit's codes.
//                          No C imports, tested without I/O.
//   Media                  the only module that touches FFmpeg
//   TraceStore, IIO,       SQLite (GRDB) and libiio adapters for the motion layer; MotionIO
//   MotionIO               reads and writes Motion's files (trace files, profiles)
//   Engine                 what every job shares: lanes, queues, the writer thread, job control,
//                          outputs and their commit, FFTW, the failure protocol
//   Lockstep               the library: jobs that wire adapters to the core
//   LockstepCLI            the `lockstep` command, thin
// LOCKSTEP_OPTIMIZE=1 (scripts/test sets it): the product's own modules are optimised in debug
// builds too, so the tests exercise them at a realistic speed. Unoptimised, the compositor's
// lane kernels and the motion math run 10-50x slower (generic SIMD operations through type
// metadata: a 320x240 3D-LUT filter spent 32% of a run in one closure) and the tests spend
// most of their time there. So is TestSupport, whose picture comparisons (PixelDifference) the
// colour and keying suites run over millions of samples. The tests themselves, and the packages
// we depend on, stay as the configuration builds them; `-enable-testing` stays, so `@testable
// import` works. Only when asked: unsafe flags would keep Lockstep from being used as a
// versioned dependency.
// LockstepCLI stays at -Onone even so: argument parsing and printing, nothing a test waits on
// (at -O it took 40 CPU-seconds of the plain build, measured with -stats-output-dir).
// LOCKSTEP_OPTIMIZE may also name the modules to optimise ("Compositor Motion"): the sanitizer
// builds optimise only the modules whose loops the tests spend their time in, since -O costs
// about three times the compile time of -Onone.
//
// LOCKSTEP_SANITIZE=address or thread (scripts/test): the product's own modules, C shim and
// tests are built with that sanitizer, and everything linked with its runtime. Unlike
// `swift build --sanitize`, the packages we depend on stay as they were built, so the three
// builds of a test run (plain, ASan, TSan) share one scratch path and compile GRDB and SwiftNIO
// once. Their code is not instrumented: ASan still catches our bad accesses into memory they
// own (its allocator is the process's), TSan sees their locks (pthreads are intercepted).
let optimize = Context.environment["LOCKSTEP_OPTIMIZE"] ?? ""
let sanitizer = Context.environment["LOCKSTEP_SANITIZE"].flatMap { ["address", "thread"].contains($0) ? $0 : nil }
let languageSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)] + (sanitizer.map { [.unsafeFlags(["-sanitize=\($0)"])] } ?? [])
// LOCKSTEP_OPTIMIZE=1 with the release configuration: scripts/test's plain build
// (`swift build -c release -Xswiftc -enable-testing`). The release configuration is what keeps
// DEBUG undefined in the packages we depend on: swift-argument-parser validates every command's
// option groups at each launch under DEBUG (`ParsableArguments._validate`, at -Onone), 0.6
// CPU-seconds of the 0.8 a refused `composite` option took, and the command-line tests launch
// `lockstep` several hundred times. The tests and the command line are compiled at -Onone there
// (what they do is not what the tests wait on; -O would triple their compile time).
// scripts/test's plain build also passes `-Xswiftc -Onone`: the packages we depend on are compiled
// unoptimised (GRDB, SwiftNIO and swift-argument-parser took 390 of the build's 1,130 CPU-seconds
// of compiling at -O with whole-module optimisation, 117 at -Onone, 2026-11-29,
// -stats-output-dir), which the tests pay back as about 0.04 CPU-s more a `lockstep` launch
// (argument parsing) and slower store writes. The product's own modules are put back to -O by
// `-Xfrontend -O`, which reaches the compiler after the driver's -Onone (an -O among swiftc's
// own flags would not: SwiftPM places -Xswiftc flags after a target's). Only with
// LOCKSTEP_OPTIMIZE=1, as the other unsafe flags.
let optimisedInRelease: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-O"], .when(configuration: .release))]
let unoptimisedInRelease: [SwiftSetting] = optimize == "1" ? [.unsafeFlags(["-Onone"], .when(configuration: .release))] : []
let testSettings = languageSettings + unoptimisedInRelease
func ownSettings(_ module: String) -> [SwiftSetting] {
    languageSettings
        + ((optimize == "1" && module != "LockstepCLI") || optimize.split(separator: " ").contains(Substring(module)) ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : [])
        + (optimize == "1" && module != "LockstepCLI" ? optimisedInRelease : [])
        + (module == "LockstepCLI" ? unoptimisedInRelease : [])
}
let sanitizerLink: [LinkerSetting] = sanitizer.map { [.unsafeFlags(["-sanitize=\($0)"])] } ?? []
let sanitizerC: [CSetting] = sanitizer.map { [.unsafeFlags(["-fsanitize=\($0)"])] } ?? []
// The C kernels (CVectors) are the product's own too: at -O0 their eight-lane vectors become
// memory round trips (the stabiliser's warp ran several times slower in a debug build).
let optimizeC: [CSetting] = optimize == "1" || optimize.split(separator: " ").contains("CVectors") ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []

let package = Package(
    name: "lockstep",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "lockstep", targets: ["LockstepCLI"]),
        .library(name: "Lockstep", targets: ["Lockstep"]),
        // The parsing modules alone (no FFmpeg, SQLite or jobs): what Fuzz/ builds against.
        .library(name: "LockstepParsers", targets: ["Compositor", "Motion", "Verify", "IIO"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-nio", .upToNextMinor(from: "2.101.0"))
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        // libavfilter (FFmpeg 5.1): the kept deinterlacers, bwdif and yadif. Its headers only: the
        // library is opened when a deinterlacer is made (its shim says why), so no pkg-config
        // (which would link it); Debian's headers are on the compiler's own path.
        .systemLibrary(name: "CAVFilter", providers: [.apt(["libavfilter-dev"])]),
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CEBUR128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),

        // The kernels' vector conversions, in C so that they are always inlined (CVectors.h says why).
        .target(name: "CVectors", cSettings: sanitizerC + optimizeC),
        // Standard output through a stream that keeps a failed write's errno (fopencookie, GNU C).
        .target(name: "CStandardOutput", cSettings: sanitizerC),
        .target(
            name: "Compositor", dependencies: ["CVectors", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: ownSettings("Compositor")),
        // A complex FFT as a protocol and its pure radix-2 form (FFTW's is Engine's).
        .target(name: "Spectral", dependencies: [.product(name: "RealModule", package: "swift-numerics")], swiftSettings: ownSettings("Spectral")),
        .target(
            name: "Motion", dependencies: ["Spectral", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: ownSettings("Motion")),
        // Where inputs lie on each other's clocks by their sound (`align`): the correlation's
        // weighting, peaks, drift fit and decisions, pure; the FFTs are Lockstep's (FFTW).
        .target(
            name: "AudioAlign", dependencies: ["Motion", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: ownSettings("AudioAlign")),
        // Motion's file I/O (trace files, profiles): the parsing stays in Motion, pure.
        .target(name: "MotionIO", dependencies: ["Motion"], swiftSettings: ownSettings("MotionIO")),
        .target(
            name: "Media", dependencies: ["CFFmpeg", "CAVFilter", "Compositor", .product(name: "Atomics", package: "swift-atomics")],
            swiftSettings: ownSettings("Media")),
        .target(
            name: "TraceStore", dependencies: ["Motion", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: ownSettings("TraceStore")),
        .target(
            name: "IIO",
            dependencies: [
                "CIIO", "Motion", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ],
            swiftSettings: ownSettings("IIO")),
        // The timestamp-sync test kit's codes (frame numbers in pictures and in sound): pure.
        .target(
            name: "SyncCode", dependencies: ["Compositor", "Spectral", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: ownSettings("SyncCode")),
        .target(name: "Verify", dependencies: ["Compositor", "SyncCode"], swiftSettings: ownSettings("Verify")),
        // What every job shares: input and audio lanes, the frame writer, bounded queues and the
        // failure box, job control (stop signals, the watchdog, progress), outputs (temporary
        // file and commit, provenance), FFTW phase correlation, the failure protocol.
        .target(
            name: "Engine",
            dependencies: [
                "Compositor", "Media", "Motion", "Spectral", "CFFTW", "CEBUR128", "CStandardOutput", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ],
            swiftSettings: ownSettings("Engine")),
        .target(
            name: "Lockstep",
            dependencies: [
                "Engine", "Compositor", "Media", "Motion", "MotionIO", "TraceStore", "IIO", "Verify", "SyncCode", "CFFTW", "AudioAlign", "CEBUR128",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ],
            swiftSettings: ownSettings("Lockstep")),
        .executableTarget(
            name: "LockstepCLI",
            dependencies: ["Lockstep", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: ownSettings("LockstepCLI"), linkerSettings: sanitizerLink),

        // Scratch folders, fixtures, the built binary and outside processes, shared by every
        // test target (a plain target: SwiftPM links it into the test bundles that use it).
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: ownSettings("TestSupport"), linkerSettings: sanitizerLink),
        .testTarget(name: "CompositorTests", dependencies: ["Compositor", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        // Optimised like the product: its reference FFT and its synthetic sound (a minute of tone grains
        // at 8 kHz) are the suite's work: 14.2 s at -Onone, 1.5 s optimised (12 tests).
        .testTarget(name: "AudioAlignTests", dependencies: ["AudioAlign", "TestSupport"], swiftSettings: ownSettings("AudioAlignTests"), linkerSettings: sanitizerLink),
        .testTarget(name: "MotionTests", dependencies: ["Motion", "MotionIO", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        .testTarget(name: "MediaTests", dependencies: ["Media", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        .testTarget(name: "TraceStoreTests", dependencies: ["TraceStore", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        .testTarget(
            name: "IIOTests", dependencies: ["IIO", "TraceStore", "MotionIO", "TestSupport", .product(name: "NIOCore", package: "swift-nio")], swiftSettings: testSettings,
            linkerSettings: sanitizerLink),
        .testTarget(name: "SyncCodeTests", dependencies: ["SyncCode", "Compositor", "Spectral"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        .testTarget(name: "VerifyTests", dependencies: ["Verify", "SyncCode", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        // The engine's threads, queues, signals and outputs: the suite ThreadSanitizer needs most.
        .testTarget(name: "EngineTests", dependencies: ["Engine", "Spectral", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        .testTarget(name: "LockstepTests", dependencies: ["Lockstep", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink),
        .testTarget(name: "LockstepCLITests", dependencies: ["LockstepCLI", "TestSupport"], swiftSettings: testSettings, linkerSettings: sanitizerLink)
    ],
    swiftLanguageModes: [.v6]
)

// LOCKSTEP_TEST_TARGETS (scripts/test's sanitizer builds of the default tier): only these test
// targets are built, the ones whose suites that sanitizer runs.
if let only = Context.environment["LOCKSTEP_TEST_TARGETS"]?.split(separator: " ").map(String.init), !only.isEmpty {
    package.targets.removeAll { $0.type == .test && !only.contains($0.name) }
}
