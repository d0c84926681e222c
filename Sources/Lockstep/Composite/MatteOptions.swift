import Compositor
import Foundation
import Media

/// `--matte MATTE [--mix-factor F] [--matte-mode replace|multiply]`: a greyscale movie read like
/// one more input (one frame per tick under the same --sync, recorded in provenance as the last
/// input, ending the output when it ends), scaled to the canvas, its luma the per-pixel weight:
/// between the filtered and the unfiltered picture (`filter`), or the foreground's alpha
/// (`composite --blend chromakey|stack`: the first input over the second, or the top layer
/// over the ones below).
public struct MatteOptions: Sendable, Equatable {
    public var path: String
    public var mixFactor = 1.0
    public var mode = MatteMode.replace
    public init(path: String) { self.path = path }
}

extension CompositeOptions {
    /// Every movie the job reads: the inputs, then the matte.
    public var readerPaths: [String] { inputs + (matte.map { [$0.path] } ?? []) }

    /// The matte's rules, one sentence each (the options named as on the command line).
    func checkMatte() throws {
        guard let matte else { return }
        guard matte.mixFactor.isFinite, (0...1).contains(matte.mixFactor) else {
            throw KeyerError.mixFactorOutOfRange(got: "\(matte.mixFactor)")
        }
        switch blend {
        case .single:
            guard let filter, !filter.chains.allSatisfy({ $0.filters.isEmpty }) else {
                throw KeyerError.matteNeedsFilter
            }
        case .chromakey, .stack: break
        case .mix, .quad, .grid, .pip: throw KeyerError.matteNeedsKeyBlend(blend: blend.rawValue)
        }
    }
}

/// The conformer of the matte's lane: the whole matte stretched to the whole canvas.
extension Conformer {
    static func matte(canvas: Size, rotation: Int) throws -> Conformer {
        try Conformer(place: canvas, picture: Rect(x: 0, y: 0, width: canvas.width, height: canvas.height), fill: .black, rotation: rotation)
    }
}

extension FilterStage {
    /// Renders the chain in force and mixes it over the unfiltered picture with the matte's
    /// weights, in place; returns the chain's text for the provenance.
    func apply(to frame: Frame, matte: Frame, mix: MatteMix, index: Int64, time: Rational) throws -> String {
        let chain = switcher.chain(forFrame: index, at: time)
        guard !chain.isEmpty else { return chain.name }
        frame.withImage { picture in
            matte.withImage { m in mix.apply(over: chain.render(picture), under: picture, matte: m.y, into: picture) }
        }
        return chain.name
    }
}
