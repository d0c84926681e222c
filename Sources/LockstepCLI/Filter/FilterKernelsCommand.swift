import ArgumentParser
import Foundation
import Lockstep

/// `lockstep filter-kernels`: milliseconds per frame of each filter preset at its defaults, on
/// one core (this thread), for scripts/bench/run (hidden: a measuring tool, not a feature).
struct FilterKernelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "filter-kernels", abstract: "Time each filter preset.", shouldDisplay: false)

    @Option(help: ArgumentHelp("Frame size.", valueName: "WxH")) var size = Size(width: 1920, height: 1080)
    @Option(help: "Frames per preset.") var frames = 30

    func validate() throws { try checkBenchmark(size: size, frames: frames) }

    func run() throws {
        let input = YUVBuffer(width: size.width, height: size.height)
        let picture = input.image
        // Texture in every plane, so no preset meets only one value (a LUT's cache would flatter it).
        for y in 0..<size.height { for x in 0..<size.width { picture.y[x, y] = UInt8(16 + (x * 7 + y * 3) % 220) } }
        for y in 0..<picture.u.height {
            for x in 0..<picture.u.width { picture.u[x, y] = UInt8(16 + (x * 5) % 225); picture.v[x, y] = UInt8(16 + (y * 3 + x) % 225) }
        }
        // A 33-point table (the common .cube size) that is not the identity: a warm grade.
        let n = 33
        var table: [SIMD3<Float>] = []
        table.reserveCapacity(n * n * n)
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let c = SIMD3<Float>(Float(r), Float(g), Float(b)) / Float(n - 1)
                    table.append(SIMD3(min(1, c.x * 1.1), c.y, c.z * 0.9))
                }
            }
        }
        let lut = CubeLUT(size: n, table: table)
        let chains = FilterName.allCases.flatMap { name -> [String] in
            name == .lut ? ["lut:file=warm.cube:interp=trilinear", "lut:file=warm.cube:interp=tetrahedral"] : [name.rawValue]
        }
        for text in chains {
            let chain = try FilterFactory.chain(try FilterChainSpec(parsing: text)) { _ in lut }
            chain.prepare(format: FilterFormat(width: size.width, height: size.height), retainedBufferHint: 1)
            _ = chain.render(picture)  // first touch of the pool's pages, outside the timing
            let start = DispatchTime.now().uptimeNanoseconds, startCPU = Self.threadCPUNanoseconds()
            for _ in 0..<frames { _ = chain.render(picture) }
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames)
            let cpu = Double(Self.threadCPUNanoseconds() - startCPU) / 1e6 / Double(frames)
            print(
                text + String(repeating: " ", count: max(1, 38 - text.count)) + String(format: "%6.2f", ms) + " ms/frame"
                    + String(format: "  (%6.2f ms CPU)", cpu))
        }
        withExtendedLifetime(input) {}
    }

    /// This thread's CPU time: on a shared machine the wall time counts the neighbours' turns
    /// too, the CPU time only this thread's work (caches still shared).
    static func threadCPUNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}
