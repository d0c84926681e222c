import ArgumentParser
import Foundation
import Lockstep

/// `lockstep kernels`: milliseconds per frame of each blend kernel and of the snake renderer, on
/// one core, next to a plain copy of a frame (the memory floor of any blend), for scripts/bench/run
/// (hidden: a measuring tool, not a feature). Each line gives the wall time and the thread's CPU
/// time: on a shared machine the wall time also counts the time other processes held the core,
/// the CPU time does not (it still pays for their cache traffic).
struct KernelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "kernels", abstract: "Time the per-frame kernels.", shouldDisplay: false)

    @Option(help: ArgumentHelp("Frame size.", valueName: "WxH")) var size = Size(width: 1920, height: 1080)
    @Option(help: "Frames per kernel.") var frames = 60

    func validate() throws { try checkBenchmark(size: size, frames: frames) }

    func run() throws {
        let a = YUVBuffer(width: size.width, height: size.height), b = YUVBuffer(width: size.width, height: size.height)
        let out = YUVBuffer(width: size.width, height: size.height)
        // A green-screen foreground with a grey block, and a textured background.
        PlaneKernels.fill(a.image, YUVColor(rgb: RGB(r: 0, g: 255, b: 0)))
        PlaneKernels.fill(a.image, YUVColor(y: 120, u: 128, v: 128), in: Rect(x: size.width / 4, y: size.height / 4, width: size.width / 2, height: size.height / 2))
        for y in 0..<size.height { for x in 0..<size.width { b.image.y[x, y] = UInt8((x * 7 + y * 3) & 255) } }
        let key = ChromaKey()
        let keyer = Keyer(settings: KeyerSettings())
        let weights = PlaneKernels.fixedPointWeights([1, 1])
        let snake = SnakeRenderer(width: size.width, height: size.height)
        // An HLG picture (10-bit BT.2020, limited range): smooth colour ramps with grain, and
        // the conversions every input that is not BT.709 SDR goes through.
        let hlg = YUV16Buffer(width: size.width, height: size.height)
        let h = hlg.image
        var seed: UInt32 = 1
        for y in 0..<size.height {
            let row = h.y.row(y)
            for x in 0..<size.width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                row[x] = UInt16(64 + (x * 700 / size.width + y * 200 / size.height + Int(seed >> 29)) % 876)
            }
        }
        for y in 0..<h.u.height {
            let u = h.u.row(y), v = h.v.row(y)
            for x in 0..<h.u.width { u[x] = UInt16(200 + (x * 600) / h.u.width); v[x] = UInt16(800 - (y * 600) / h.u.height) }
        }
        let sdr = WorkingSignal.sdr.description
        let toSDR = ColorConvertKernel(ColorConversion(from: WorkingSignal.hlg.description, to: sdr))
        // The same on Vector8 alone: what a processor without AVX2 runs.
        let toSDRVector = ColorConvertKernel(ColorConversion(from: WorkingSignal.hlg.description, to: sdr), allowAVX2: false)
        var bt601 = sdr
        bt601.matrix = .bt601
        let to709 = ColorConvertKernel(ColorConversion(from: bt601, to: sdr))
        func cpuMilliseconds() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
        }
        func time(_ name: String, _ body: (Int) -> Void) {
            let start = DispatchTime.now().uptimeNanoseconds, cpu = cpuMilliseconds()
            for i in 0..<frames { body(i) }
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames)
            let cpuMs = (cpuMilliseconds() - cpu) / Double(frames)
            print("\(name) \(String(format: "%.2f", ms)) ms/frame (cpu \(String(format: "%.2f", cpuMs)))")
        }
        withExtendedLifetime((a, b, out, hlg)) {
            // The floor of any blend: one frame read, one written.
            time("copy") { _ in PlaneKernels.copy(b.image, into: out.image) }
            time("chromakey") { _ in key.apply(foreground: a.image, background: b.image, into: out.image) }
            time("keyer") { _ in keyer.apply(foreground: a.image, background: b.image, into: out.image) }
            time("mix") { _ in PlaneKernels.mix([a.image, b.image], weights: weights, into: out.image) }
            time("snake") { i in snake.render(b.image, motion: SnakeMotion(ax: 0.1, ay: -0.05, time: Double(i) / 30), into: out.image) }
            // The colour step of an input (Media's ColorFitter runs these after decoding).
            time(toSDR.usesAVX2 ? "hlg-to-sdr (avx2)" : "hlg-to-sdr") { _ in toSDR.apply(hlg.image, into: out.image) }
            if toSDR.usesAVX2 { time("hlg-to-sdr (lanes)") { _ in toSDRVector.apply(hlg.image, into: out.image) } }
            time("bt601-to-bt709") { _ in to709.apply(b.image, into: out.image) }
        }
    }
}

/// The measuring tools' options, range-checked like every other (a size of 0x0 or -5x-5, or
/// --frames -1, trapped).
func checkBenchmark(size: Size, frames: Int) throws {
    guard (2...CompositeOptions.largestSide).contains(size.width), (2...CompositeOptions.largestSide).contains(size.height),
        size.width % 2 == 0, size.height % 2 == 0
    else {
        throw ValidationError("--size \(size): width and height must be even numbers from 2 to \(CompositeOptions.largestSide).")
    }
    guard (1...100_000).contains(frames) else { throw ValidationError("--frames must be between 1 and 100000; got \(frames).") }
}
