/// Where the writer's mixer reads an input's sound, on the output's clock (48 kHz samples from
/// the output's first). An input lane's reader fills one as it decodes (`AudioLane`); a sound
/// known before the job (a reversal's spool, `lockstep reverse`) answers at once.
package protocol SoundSource: AnyObject {
    /// Output-clock position up to which the source can answer (Int64.max once it has all).
    var readyUntil: Int64 { get }
    /// Blocks until the source can answer up to `position` or has ended.
    func wait(until position: Int64)
    /// Copies output samples [from, from + count) into l and r, silence where it has none.
    func read(from: Int64, count: Int, left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>) throws
}

extension AudioLane: SoundSource {}
