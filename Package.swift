// swift-tools-version:6.1
import PackageDescription

// Architecture, bottom up:
//   CFFmpeg, CIIO, CFFTW   system libraries (pkg-config) with the few shims Swift cannot import
//   Compositor, Motion,    the pure core: timestamps, sync policy, layout, blend kernels and
//   Verify                 effects, audio mix math; IMU parsing, fusion, synchronizer,
//                          calibration math; the checks of `verify`. No C imports, tested without I/O.
//   Media                  the only module that touches FFmpeg
//   TraceStore, IIO        SQLite (GRDB) and libiio adapters for the motion layer
//   Lockstep               the library: jobs that wire adapters to the core
//   LockstepCLI            the `lockstep` command, thin
let package = Package(
    name: "lockstep",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "lockstep", targets: ["LockstepCLI"]),
        .library(name: "Lockstep", targets: ["Lockstep"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),

        .target(name: "Compositor", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        .target(name: "Motion", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        .target(name: "Media", dependencies: ["CFFmpeg", "Compositor", .product(name: "Atomics", package: "swift-atomics")]),
        .target(name: "TraceStore", dependencies: ["Motion", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "IIO", dependencies: ["CIIO", "Motion"]),
        .target(name: "Verify", dependencies: ["Compositor"]),
        .target(name: "Lockstep", dependencies: ["Compositor", "Media", "Motion", "TraceStore", "IIO", "Verify", "CFFTW"]),
        .executableTarget(
            name: "LockstepCLI",
            dependencies: ["Lockstep", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        .testTarget(name: "CompositorTests", dependencies: ["Compositor"]),
        .testTarget(name: "MotionTests", dependencies: ["Motion"]),
        .testTarget(name: "MediaTests", dependencies: ["Media"]),
        .testTarget(name: "TraceStoreTests", dependencies: ["TraceStore"]),
        .testTarget(name: "IIOTests", dependencies: ["IIO", "TraceStore"]),
        .testTarget(name: "VerifyTests", dependencies: ["Verify"]),
        .testTarget(name: "LockstepTests", dependencies: ["Lockstep"]),
        .testTarget(name: "LockstepCLITests", dependencies: ["LockstepCLI"]),
    ],
    swiftLanguageModes: [.v5]
)
