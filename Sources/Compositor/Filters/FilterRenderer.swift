/// The picture format a renderer is prepared for: yuv420p of this size (Lockstep's working format).
public struct FilterFormat: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int, height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }
}

/// AVCamFilter's `FilterRenderer`, on Lockstep's planes.
///
/// - `prepare(format:retainedBufferHint:)` allocates everything the renderer will need: its
///   output pool (as many pictures as the caller may hold at once, the hint) and any scratch
///   space. Rendering then allocates nothing.
/// - `reset()` forgets the frames seen so far (AVCamFilter resets the outgoing renderer on a
///   swipe); the pool is kept, so the renderer can come back later without preparing again.
/// - `render(_:)` returns the next picture of its pool, valid until `retainedBufferHint` more
///   renders have happened. The input is never written to.
///
/// A renderer belongs to one thread at a time (the job's compositor thread).
public protocol FilterRenderer: AnyObject {
    /// The text the renderer was made from (`blur:radius=2`), for provenance and messages.
    var name: String { get }
    var preparedFormat: FilterFormat? { get }
    func prepare(format: FilterFormat, retainedBufferHint: Int)
    func reset()
    func render(_ input: YUVImage) -> YUVImage
}

/// What one preset computes, from one picture into another of the same size. Scratch space is
/// allocated in `prepare`, never in `apply`.
public protocol FilterKernel {
    mutating func prepare(format: FilterFormat)
    mutating func apply(_ input: YUVImage, into output: YUVImage)
}

extension FilterKernel {
    public mutating func prepare(format: FilterFormat) {}
}

/// A renderer around a kernel: the output pool and the prepare/reset/render discipline, once
/// for every preset.
public final class KernelRenderer: FilterRenderer {
    public let name: String
    private var kernel: any FilterKernel
    private var pool: [YUVBuffer] = []
    private var images: [YUVImage] = []
    private var next = 0
    public private(set) var preparedFormat: FilterFormat?

    public init(name: String, kernel: any FilterKernel) { self.name = name; self.kernel = kernel }

    public func prepare(format: FilterFormat, retainedBufferHint: Int) {
        precondition(format.width > 0 && format.height > 0)
        let count = max(1, retainedBufferHint)
        if preparedFormat == format && pool.count == count { return }
        pool = (0..<count).map { _ in YUVBuffer(width: format.width, height: format.height) }
        images = pool.map(\.image)
        next = 0
        kernel.prepare(format: format)
        preparedFormat = format
    }

    public func reset() { next = 0 }

    public func render(_ input: YUVImage) -> YUVImage {
        guard let f = preparedFormat else { preconditionFailure("\(name): render before prepare") }
        precondition(input.width == f.width && input.height == f.height, "\(name): prepared for \(f), given \(input.width)x\(input.height)")
        let out = images[next]
        next = (next + 1) % images.count
        kernel.apply(input, into: out)
        return out
    }
}

/// Renderers applied left to right; each one's output is the next one's input. An empty chain
/// (`none`) hands the input back as it is.
public final class FilterChain: FilterRenderer {
    public let name: String
    public let renderers: [any FilterRenderer]
    public private(set) var preparedFormat: FilterFormat?

    public init(name: String, renderers: [any FilterRenderer]) { self.name = name; self.renderers = renderers }

    public var isEmpty: Bool { renderers.isEmpty }

    public func prepare(format: FilterFormat, retainedBufferHint: Int) {
        // Inner renderers' outputs are consumed at once by the next one: one picture each.
        for (i, r) in renderers.enumerated() {
            r.prepare(format: format, retainedBufferHint: i == renderers.count - 1 ? retainedBufferHint : 1)
        }
        preparedFormat = format
    }

    public func reset() { for r in renderers { r.reset() } }

    public func render(_ input: YUVImage) -> YUVImage {
        var picture = input
        for r in renderers { picture = r.render(picture) }
        return picture
    }
}
