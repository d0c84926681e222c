/// A problem with a filter chain, a schedule or a `.cube` file: one sentence for the user.
public struct FilterError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The presets, a closed set: the order is the one `lockstep filter --list` prints.
public enum FilterName: String, CaseIterable, Sendable {
    case rosy, mono, sepia, invert, brightness, contrast, saturation, exposure, gamma, hue, posterize,
        vignette, pixellate, blur, sharpen, edges, lut

    public var summary: String {
        switch self {
        case .rosy: return "the green channel removed (AVCamFilter's Rosy)"
        case .mono: return "greyscale: chroma set to neutral"
        case .sepia: return "GPUImage's sepia tone matrix, mixed with the picture by intensity"
        case .invert: return "the negative: every component mirrored in its range"
        case .brightness: return "adds amount (of full scale) to R, G and B"
        case .contrast: return "scales R, G and B away from mid grey by amount"
        case .saturation: return "scales the colourfulness (0: grey, 1: unchanged)"
        case .exposure: return "multiplies R, G and B by 2^ev"
        case .hue: return "turns the hue by degrees (the chroma plane rotated)"
        case .gamma: return "R, G and B raised to the power gamma"
        case .posterize: return "R, G and B quantised to levels steps"
        case .vignette: return "darkens towards the corners, from start to end (fractions of the half diagonal)"
        case .pixellate: return "blocks of size x size pixels, each its mean"
        case .blur: return "gaussian blur of standard deviation radius pixels (separable)"
        case .sharpen: return "unsharp mask: the picture plus amount times its difference from a blur of radius"
        case .edges: return "Sobel gradient magnitude of the luma, times strength, in grey"
        case .lut: return "a 3D LUT from a .cube file, trilinear or tetrahedral"
        }
    }

    public var parameters: [FilterParameter] {
        switch self {
        case .rosy, .mono, .invert: return []
        case .sepia: return [.number("intensity", 0...1, 1)]
        case .brightness: return [.number("amount", -1...1, 0.2)]
        case .contrast: return [.number("amount", 0...4, 1.5)]
        case .saturation: return [.number("amount", 0...4, 0.5)]
        case .exposure: return [.number("ev", -4...4, 1)]
        case .gamma: return [.number("gamma", 0.1...10, 1.5)]
        case .hue: return [.number("degrees", -360...360, 90)]
        case .posterize: return [.number("levels", 2...64, 8, integer: true)]
        case .vignette: return [.number("start", 0...2, 0.5), .number("end", 0...2, 1)]
        case .pixellate: return [.number("size", 2...256, 16, integer: true)]
        case .blur: return [.number("radius", 0.3...50, 2)]
        case .sharpen: return [.number("amount", 0...8, 1), .number("radius", 0.3...10, 1)]
        case .edges: return [.number("strength", 0.1...16, 1)]
        case .lut: return [.file("file"), .choice("interp", ["trilinear", "tetrahedral"], "trilinear")]
        }
    }
}

/// One named parameter of a preset, with its default and the values it accepts.
public struct FilterParameter: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case number(ClosedRange<Double>, default: Double, integer: Bool)
        case choice([String], default: String)
        /// A path, required (no default).
        case file
    }
    public var name: String
    public var kind: Kind

    static func number(_ name: String, _ range: ClosedRange<Double>, _ value: Double, integer: Bool = false) -> FilterParameter {
        FilterParameter(name: name, kind: .number(range, default: value, integer: integer))
    }
    static func choice(_ name: String, _ values: [String], _ value: String) -> FilterParameter {
        FilterParameter(name: name, kind: .choice(values, default: value))
    }
    static func file(_ name: String) -> FilterParameter { FilterParameter(name: name, kind: .file) }

    /// "radius=2 (0.3 to 50)", "interp=trilinear (trilinear|tetrahedral)", "file=PATH (required)".
    public var usage: String {
        switch kind {
        case let .number(range, value, integer):
            return "\(name)=\(FilterParameter.format(value)) (\(integer ? "integer " : "")\(FilterParameter.format(range.lowerBound)) to \(FilterParameter.format(range.upperBound)))"
        case let .choice(values, value): return "\(name)=\(value) (\(values.joined(separator: "|")))"
        case .file: return "\(name)=PATH (required)"
        }
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}

/// One filter of a chain with every parameter's value (defaults filled in), as parsed.
public struct FilterSpec: Equatable, Sendable {
    public var name: FilterName
    public var numbers: [String: Double]
    public var texts: [String: String]
    /// As the user wrote it.
    public var text: String

    public func number(_ key: String) -> Double {
        guard let v = numbers[key] else { preconditionFailure("\(name.rawValue) has no number \(key)") }
        return v
    }

    /// Parses `NAME[:k=v[:k=v]]`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let name = FilterName(rawValue: parts[0]) else {
            throw FilterError("unknown filter \"\(parts[0])\"; valid filters: \(FilterName.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self.name = name
        self.text = text
        numbers = [:]
        texts = [:]
        let parameters = name.parameters
        var given: Set<String> = []
        for pair in parts.dropFirst() {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let p = parameters.first(where: { $0.name == kv[0] }) else {
                throw FilterError(
                    parameters.isEmpty
                        ? "filter \(name.rawValue) takes no parameters; got \"\(kv[0])\"."
                        : "filter \(name.rawValue) has no parameter \"\(kv[0])\"; valid parameters: \(parameters.map(\.name).joined(separator: ", ")).")
            }
            guard kv.count == 2, !kv[1].isEmpty else { throw FilterError("filter \(name.rawValue): \(p.name) needs a value (\(p.name)=VALUE).") }
            guard given.insert(p.name).inserted else { throw FilterError("filter \(name.rawValue): \(p.name) is given twice.") }
            let value = kv[1]
            switch p.kind {
            case let .number(range, _, integer):
                guard let v = Double(value), v.isFinite, range.contains(v), !integer || v == v.rounded() else {
                    throw FilterError(
                        "filter \(name.rawValue): \(p.name) must be \(integer ? "an integer" : "a number") from "
                            + "\(FilterParameter.format(range.lowerBound)) to \(FilterParameter.format(range.upperBound)); got \"\(value)\".")
                }
                numbers[p.name] = v
            case let .choice(values, _):
                guard values.contains(value) else {
                    throw FilterError("filter \(name.rawValue): \(p.name) must be one of \(values.joined(separator: ", ")); got \"\(value)\".")
                }
                texts[p.name] = value
            case .file:
                texts[p.name] = value
            }
        }
        for p in parameters where !given.contains(p.name) {
            switch p.kind {
            case let .number(_, value, _): numbers[p.name] = value
            case let .choice(_, value): texts[p.name] = value
            case .file: throw FilterError("filter \(name.rawValue) needs \(p.name)=PATH.")
            }
        }
    }
}

/// A chain as the user wrote it: `NAME[:k=v[:k=v]][,NAME...]`, or `none` (no filter).
public struct FilterChainSpec: Equatable, Sendable, CustomStringConvertible {
    public var filters: [FilterSpec]
    public var text: String
    public var description: String { text }
    public static let none = FilterChainSpec(filters: [], text: "none")
    /// The longest chain taken.
    public static let mostFilters = 64

    init(filters: [FilterSpec], text: String) { self.filters = filters; self.text = text }

    public init(parsing text: String) throws {
        if text == "none" { self = .none; return }
        guard !text.isEmpty else { throw FilterError("the filter chain is empty; give NAME[:k=v...][,NAME...] or none.") }
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if items.contains("") { throw FilterError("\"\(text)\": an empty filter between commas.") }
        // Each filter is prepared with a frame pool of its own: 20001 filters ran a job into the
        // stall watchdog on a 320x240 clip, and at 1080p would exhaust memory first.
        guard items.count <= Self.mostFilters else {
            throw FilterError("a chain of \(items.count) filters; at most \(Self.mostFilters) are chained.")
        }
        self.init(filters: try items.map(FilterSpec.init(parsing:)), text: text)
    }

    /// Every preset and its parameters, as `lockstep filter --list` prints them.
    public static var listing: String {
        FilterName.allCases.map { n in
            let ps = n.parameters.map(\.usage).joined(separator: ", ")
            return "\(n.rawValue)\(String(repeating: " ", count: max(1, 12 - n.rawValue.count)))\(n.summary)" + (ps.isEmpty ? "" : "\n            \(ps)")
        }.joined(separator: "\n")
    }
}
