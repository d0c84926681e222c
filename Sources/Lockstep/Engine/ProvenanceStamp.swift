import Compositor
import Media

/// Puts a frame's provenance into its picture (the SEI message the encoder writes), with the
/// rendered change `verify` needs to tell a still source from a frozen output
/// (`Provenance.change`). One per output stream: each stamp compares with the one before.
final class ProvenanceStamp {
    private let change: RenderedChange

    init(width: Int, height: Int) { change = RenderedChange(width: width, height: height) }

    func stamp(_ frame: Frame, with record: Provenance) throws {
        var record = record
        record.change = frame.withImage { change.measure($0) }
        try frame.setUserDataSEI(record.payload())
    }
}
