import Compositor
import Media

/// A reversal's pictures in the order it shows them, pulled one at a time by the frame loop
/// (`FrameSync.drive`): each run of the timeline is read in passes (`ReversePlan`), a pass
/// decoded into a pool of `pool` pictures through `SeekingVideoReader`, then handed over last
/// frame first (backward) or in order (forward), each fitted to the canvas and placed where
/// the timeline puts it. Memory is the pool and a few fitted frames, whatever the movie's length.
final class ReverseFrames {
    /// A fitted picture the loop holds, and the source frame it shows.
    struct Item {
        let frame: Frame
        let source: Int
    }

    private let reader: SeekingVideoReader
    private let conformer: Conformer
    let timeline: ReverseTimeline
    private let decoded: [Frame]
    /// Fitted frames the loop does not hold (it holds two at most, and one it refused).
    private var free: [Frame]
    private var piece = -1
    private var passes: [Range<Int>] = []
    private var pass = 0
    /// The frames of the decoded pass still to hand over, in the order they are shown.
    private var order = stride(from: 0, through: -1, by: 1).makeIterator()
    private var pulled = 0
    private let deinterlace: DeinterlaceMode

    init(reader: SeekingVideoReader, conformer: Conformer, timeline: ReverseTimeline, pool: Int, deinterlace: DeinterlaceMode = .off) {
        self.reader = reader
        self.deinterlace = deinterlace
        self.conformer = conformer
        self.timeline = timeline
        decoded = (0..<pool).map { _ in Frame() }
        free = (0..<4).map { _ in Frame() }
    }

    var poolFrames: Int { decoded.count }

    /// The next picture in showing order, its place on the output's timeline as its pts (the
    /// source's time base) and its length there as its duration; `.end` after the last.
    func next() throws -> FramePull<Item> {
        while true {
            if let s = order.next() {
                let p = timeline.pieces[piece]
                let place = timeline.placed(s, in: p)
                guard let frame = free.popLast() else { preconditionFailure("the loop holds every fitted frame") }
                try conformer.fit(decoded[s - passes[pass - 1].lowerBound], into: frame)
                let tb = reader.index.timeBase
                defer { pulled += 1 }
                return .frame(
                    SourceFrame(index: pulled, pts: Timestamp(place.start, tb), duration: tb * place.length),
                    Item(frame: frame, source: s))
            }
            if reader.cancellation.isCancelled { throw JobError.cancelled }
            if pass == passes.count {
                piece += 1
                guard piece < timeline.pieces.count else { return .end }
                let index = reader.index
                switch timeline.pieces[piece].run {
                case .backward(let r):
                    passes = ReversePlan.backwardPasses(r, pool: decoded.count) { index.segmentStarts[index.segment(of: $0)] }
                case .forward(let r):
                    passes = ReversePlan.forwardPasses(r, pool: decoded.count, segmentStarts: index.segmentStarts)
                }
                pass = 0
            }
            let range = passes[pass]
            pass += 1
            try reader.decode(range, deinterlace: deinterlace) { s, picture in decoded[s - range.lowerBound].take(from: picture) }
            order =
                (timeline.pieces[piece].backward
                ? stride(from: range.upperBound - 1, through: range.lowerBound, by: -1)
                : stride(from: range.lowerBound, through: range.upperBound - 1, by: 1)).makeIterator()
        }
    }

    /// A fitted frame the loop no longer needs.
    func release(_ item: Item) { free.append(item.frame) }
}
