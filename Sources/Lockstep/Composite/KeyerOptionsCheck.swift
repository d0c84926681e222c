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
            throw JobError("\(name) must be between 0 and 1; got \(value).")
        }
        guard KeyerSettings.spillCasts.contains(k.spillCast) else {
            throw JobError("--spill-cast must be between \(KeyerSettings.spillCasts.lowerBound) and \(KeyerSettings.spillCasts.upperBound); got \(k.spillCast).")
        }
        for (name, value, range) in [
            ("--core-clip", k.coreClip, KeyerSettings.coreClips), ("--matte-smoothing", k.matteSmoothing, KeyerSettings.matteSmoothings)
        ] where !range.contains(value) {
            throw JobError("\(name) must be between \(range.lowerBound) and \(range.upperBound); got \(value).")
        }
        guard k.clipWhite > k.clipBlack else {
            throw JobError("--clip-white must be above --clip-black; got \(k.clipWhite) and \(k.clipBlack).")
        }
        for (name, value) in [("--erode", k.erode), ("--dilate", k.dilate), ("--feather", k.feather)] {
            guard value >= 0 else { throw JobError("\(name) must be 0 or more pixels; got \(value).") }
            guard value <= Self.largestKeyRadius else { throw JobError("\(name) must be at most \(Self.largestKeyRadius) pixels; got \(value).") }
        }
        for (name, shape) in [("--garbage", k.garbage), ("--core", k.core)] {
            if let problem = shape?.problem { throw JobError("\(name): \(problem).") }
        }
        if keyer == .gpuimage {
            // GPUImage's math has none of these: say so rather than ignore them.
            var given = k
            given.screenColor = KeyerSettings().screenColor
            if given != KeyerSettings() {
                throw JobError(
                    "--clip-black, --clip-white, --screen-balance, --despill, --despill-balance, --spill-cast, --core-clip, --matte-smoothing, --erode, --dilate, --feather, --garbage, --core and --key-view need --keyer lockstep."
                )
            }
        } else if blend == .chromakey || blend == .stack {
            let key = ColourDifference(screen: keyColor, balance: k.screenBalance)
            guard key.strength(of: YUVColor(rgb: keyColor)) >= 16 else {
                throw JobError(
                    "--key-color \(keyColor.hex): the lockstep keyer needs a screen colour whose strongest channel stands clear of the other two (a green or blue screen); --keyer gpuimage keys any colour."
                )
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
