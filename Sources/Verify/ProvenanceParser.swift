import Compositor
import Foundation

extension Provenance {
    /// A frame's provenance record from the JSON after the SEI's UUID; nil for anything that is
    /// not one (bytes from a file: never a trap). Values out of range for the checks still parse;
    /// `Checks` reports them.
    public static func parse(_ json: [UInt8], decoder: JSONDecoder = JSONDecoder()) -> Provenance? {
        try? decoder.decode(Provenance.self, from: Data(json))
    }
}
