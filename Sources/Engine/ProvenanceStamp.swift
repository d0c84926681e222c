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

    package func stamp(_ frame: Frame, with record: Provenance) throws {
        var record = record
        if frame.isHDR {
            if proxy?.width != frame.width || proxy?.height != frame.height { proxy = YUVBuffer(width: frame.width, height: frame.height) }
            let p = proxy!.image
            frame.withImage16 { PlaneKernels16.proxy($0, into: p) }
            record.change = change.measure(p)
        } else {
            record.change = frame.withImage { change.measure($0) }
        }
        try frame.setUserDataSEI(record.payload())
    }
}
