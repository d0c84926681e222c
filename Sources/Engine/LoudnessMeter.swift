import CEBUR128
import Foundation

/// A libebur128 failure, with the function that failed and the library's error name.
package struct LoudnessError: Error, CustomStringConvertible {
    package var function: String
    package var code: Int32
    package var description: String {
        let name: String
        switch code {
        case Int32(EBUR128_ERROR_NOMEM.rawValue): name = "out of memory"
        case Int32(EBUR128_ERROR_INVALID_MODE.rawValue): name = "invalid mode"
        case Int32(EBUR128_ERROR_INVALID_CHANNEL_INDEX.rawValue): name = "invalid channel index"
        case Int32(EBUR128_ERROR_NO_CHANGE.rawValue): name = "no change"
        default: name = "error \(code)"
        }
        return "libebur128: \(function): \(name)"
    }
    /// The one checker of libebur128's return codes.
    package static func check(_ code: Int32, _ function: String) throws {
        if code != Int32(EBUR128_SUCCESS.rawValue) { throw LoudnessError(function: function, code: code) }
    }
}

/// EBU R128 / ITU-R BS.1770 integrated loudness of 48 kHz stereo, on libebur128 (Debian's
/// libebur128-dev): K-weighting, 400 ms blocks, the absolute (-70 LUFS) and relative (-10 LU)
/// gates. One instance owns one ebur128_state, freed in deinit; one thread feeds it.
package final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private var interleaved: [Float] = []

    package init(sampleRate: Int = 48_000) {
        guard let s = ebur128_init(2, UInt(sampleRate), Int32(EBUR128_MODE_I.rawValue)) else { fatalError("ebur128_init: out of memory") }
        state = s
    }
    deinit { ebur128_destroy(&state) }

    /// Adds `count` samples of each channel.
    package func add(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        if interleaved.count < 2 * count { interleaved = [Float](repeating: 0, count: 2 * count) }
        try interleaved.withUnsafeMutableBufferPointer { lr in
            for i in 0..<count { lr[2 * i] = left[i]; lr[2 * i + 1] = right[i] }
            try LoudnessError.check(ebur128_add_frames_float(state, lr.baseAddress, count), "ebur128_add_frames_float")
        }
    }

    /// Integrated loudness so far, LUFS; -infinity for silence (every block under the gate).
    package func integrated() throws -> Double {
        var out = 0.0
        try LoudnessError.check(ebur128_loudness_global(state, &out), "ebur128_loudness_global")
        return out
    }
}
