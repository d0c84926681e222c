import Compositor

/// The keyer's option rules, one sentence each naming the command-line option (see `check()`).
extension CompositeOptions {
    /// The largest erode, dilate or feather radius, in pixels (scratch memory grows with it).
    public static let largestKeyRadius = 256

    /// Lockstep's keyer for this job, or nil when the blend keys nothing or GPUImage's math keys.
    /// `layout`: where the foreground lies (a placed one: the keyer keys away all outside it).
    public func makeKeyer(layout: Layout? = nil) -> Keyer? {
        guard keyer == .lockstep, blend == .chromakey || blend == .stack else { return nil }
        var settings = keying
        settings.screenColor = keyColor
        if placesKeyedForeground, let layout {
            let p = layout.pictures[0], c = layout.canvas
            settings.picture = .rect(
                x: Double(p.x) / Double(c.width), y: Double(p.y) / Double(c.height),
                width: Double(p.width) / Double(c.width), height: Double(p.height) / Double(c.height))
        }
        return Keyer(settings: settings, matrix: signal.matrix)
    }

    func checkKeyer() throws {
        let k = keying
        for (name, value) in [
            ("--clip-black", k.clipBlack), ("--clip-white", k.clipWhite), ("--screen-balance", k.screenBalance),
            ("--despill", k.despill), ("--despill-balance", k.despillBalance)
        ] where !(0...1).contains(value) {
            throw KeyerError.notAFraction(option: name, got: "\(value)")
        }
        guard KeyerSettings.spillCasts.contains(k.spillCast) else {
            throw KeyerError.spillCastOutOfRange(lowest: "\(KeyerSettings.spillCasts.lowerBound)", highest: "\(KeyerSettings.spillCasts.upperBound)", got: "\(k.spillCast)")
        }
        for (name, value, range) in [
            ("--core-clip", k.coreClip, KeyerSettings.coreClips), ("--matte-smoothing", k.matteSmoothing, KeyerSettings.matteSmoothings)
        ] where !range.contains(value) {
            throw KeyerError.outOfRange(option: name, lowest: "\(range.lowerBound)", highest: "\(range.upperBound)", got: "\(value)")
        }
        guard k.clipWhite > k.clipBlack else {
            throw KeyerError.clipsCrossed(white: "\(k.clipWhite)", black: "\(k.clipBlack)")
        }
        for (name, value) in [("--erode", k.erode), ("--dilate", k.dilate), ("--feather", k.feather)] {
            guard value >= 0 else { throw KeyerError.negativeRadius(option: name, got: "\(value)") }
            guard value <= Self.largestKeyRadius else { throw KeyerError.radiusTooLarge(option: name, limit: "\(Self.largestKeyRadius)", got: "\(value)") }
        }
        for (name, shape) in [("--garbage", k.garbage), ("--core", k.core)] {
            if let problem = shape?.problem { throw KeyerError.badShape(option: name, problem: problem) }
        }
        if keyer == .gpuimage {
            // GPUImage's math has none of these: say so rather than ignore them.
            var given = k
            given.screenColor = KeyerSettings().screenColor
            if given != KeyerSettings() {
                throw KeyerError.needsLockstepKeyer
            }
        } else if blend == .chromakey || blend == .stack {
            let key = ColourDifference(screen: keyColor, balance: k.screenBalance)
            guard key.strength(of: YUVColor(rgb: keyColor)) >= 16 else {
                throw KeyerError.weakScreenColour(hex: keyColor.hex)
            }
        }
    }
}

extension RGB {
    /// "00FF00"
    var hex: String {
        let digits = Array("0123456789ABCDEF")
        return String([r, g, b].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
