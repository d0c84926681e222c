import Compositor
import Foundation
import Media

/// `--size` of `thumbnail`: a box the picture is fitted into, or one side with the other
/// following the picture's aspect.
public enum ThumbnailSize: Equatable, Sendable, CustomStringConvertible {
    case box(Size)
    case width(Int)
    case height(Int)

    /// "320x240" (a box), "320x" (width), "x240" (height).
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let w = parts[0].isEmpty ? nil : Int(parts[0]), h = parts[1].isEmpty ? nil : Int(parts[1])
        switch (parts[0].isEmpty, parts[1].isEmpty) {
        case (false, false): guard let w, let h else { return nil }; self = .box(Size(width: w, height: h))
        case (false, true): guard let w else { return nil }; self = .width(w)
        case (true, false): guard let h else { return nil }; self = .height(h)
        case (true, true): return nil
        }
    }

    public var description: String {
        switch self {
        case .box(let s): return "\(s.width)x\(s.height)"
        case .width(let w): return "\(w)x"
        case .height(let h): return "x\(h)"
        }
    }

    /// The sides given, for validation.
    var sides: [Int] {
        switch self {
        case .box(let s): return [s.width, s.height]
        case .width(let w): return [w]
        case .height(let h): return [h]
        }
    }

    /// The box a picture of `display` size is fitted into (aspect kept): for one side, the
    /// other follows the picture.
    public func box(for display: Size) -> Size {
        switch self {
        case .box(let s): return s
        case .width(let w): return Size(width: w, height: max(2, w * display.height / max(1, display.width) + 1))
        case .height(let h): return Size(width: max(2, h * display.width / max(1, display.height) + 1), height: h)
        }
    }

    /// The output size of a picture of `display` size: the largest even size of its aspect
    /// inside the box.
    public func fitted(_ display: Size) -> Size {
        let r = Layout.fit(display, into: Rect(x: 0, y: 0, width: box(for: display).width, height: box(for: display).height))
        return Size(width: r.width, height: r.height)
    }
}

/// What `lockstep thumbnail` is asked to do.
public struct ThumbnailOptions: Equatable, Sendable {
    public var inputs: [String]
    public var output: String
    /// Where to start looking, seconds from the video's start; nil: a third of the way in.
    public var at: Double?
    /// The picture's size (single) or each tile's box (sheet); nil: the display size (single),
    /// 320x180 (sheet).
    public var size: ThumbnailSize?
    /// One tile per input, labelled, instead of one picture.
    public var sheet: Bool

    public init(inputs: [String], output: String, at: Double? = nil, size: ThumbnailSize? = nil, sheet: Bool = false) {
        self.inputs = inputs; self.output = output; self.at = at; self.size = size; self.sheet = sheet
    }

    public static let defaultTile = Size(width: 320, height: 180)

    /// Every rule that can be checked without opening a movie, as one sentence each.
    public func check() throws {
        guard !inputs.isEmpty else { throw ThumbnailError.noInput }
        if !sheet && inputs.count > 1 {
            throw ThumbnailError.oneInputOnly(got: inputs.count)
        }
        try OutputPath.refuseStandardOutput(output)
        guard ImageFormat(extensionOf: output) != nil else {
            throw ThumbnailError.notAnImageName(output)
        }
        if let at, !(at.isFinite && at >= 0) {
            let given = at.isFinite && at == at.rounded() && abs(at) < 1e15 ? String(Int(at)) : String(at)
            throw ThumbnailError.negativeTime(given: given)
        }
        if let size, !size.sides.allSatisfy({ (16...16384).contains($0) }) {
            throw ThumbnailError.sizeOutOfRange("\(size)")
        }
    }
}

/// One clip's choice: which frame, and whether it is a real picture or the fallback.
public struct ThumbnailPick: Equatable, Sendable {
    public var input: String
    /// The chosen frame's time, seconds from the video's start.
    public var time: Double
    /// The clip's length in seconds, if known.
    public var duration: Double?
    /// Nothing examined was a picture (all black or flat): the most detailed frame was taken.
    public var fallback: Bool
    /// Frames decoded and measured to choose.
    public var examined: Int
    /// What the rule saw in the frame taken (`--at`'s frame may be black or flat).
    public var verdict: ThumbnailRule.Verdict = .picture
}

public struct ThumbnailResult: Equatable, Sendable {
    public var size: Size
    public var picks: [ThumbnailPick]
    /// One sentence each, for stderr.
    public var warnings: [String]
}
