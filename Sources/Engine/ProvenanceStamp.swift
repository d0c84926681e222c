import Compositor
import Media

/// Puts a frame's provenance into its picture (the SEI message the encoder writes), with the
/// rendered change `verify` needs to tell a still source from a frozen output
/// (`Provenance.change`). One per output stream: each stamp compares with the one before.
package final class ProvenanceStamp {
    private let change: RenderedChange
    /// An HDR frame's top eight bits, what the change is measured on (as `verify` decodes it to gray).
    private var proxy: YUVBuffer?

    package init(width: Int, height: Int) { change = RenderedChange(width: width, height: height) }

    /// `sources`: the pictures `frame` was made from (each input's chosen frame, or the source
    /// frame itself where it passes through); where they and `frame` are all black, the record
    /// says so ("black"). None given: never said.
    package func stamp(_ frame: Frame, with record: Provenance, sources: [Frame] = []) throws {
        var record = record
        let black: Bool
        if frame.isHDR {
            if proxy?.width != frame.width || proxy?.height != frame.height { proxy = YUVBuffer(width: frame.width, height: frame.height) }
            let p = proxy!.image
            frame.withImage16 { PlaneKernels16.proxy($0, into: p) }
            record.change = change.measure(p)
            black = BlackPicture.isBlack(p)
        } else {
            record.change = frame.withImage { change.measure($0) }
            black = frame.withImage { BlackPicture.isBlack($0) }
        }
        // Sources are measured only under a black picture: most frames cost nothing more.
        if black && !sources.isEmpty && sources.allSatisfy(Self.isBlack) { record.black = true }
        try frame.setUserDataSEI(record.payload())
    }

    static func isBlack(_ frame: Frame) -> Bool {
        frame.isHDR ? frame.withImage16 { BlackPicture.isBlack($0) } : frame.withImage { BlackPicture.isBlack($0) }
    }
}
