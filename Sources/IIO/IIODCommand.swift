/// One line of libiio 0.24's iiod text protocol, parsed (iiod/parser.y's grammar, the subset a
/// 0.24 client sends). Anything else is `.unknown`, answered with -EINVAL. Pure: it never traps,
/// whatever the line holds (Fuzz/Sources/FuzzIIODCommand runs it on random bytes).
public enum IIODCommand: Equatable, Sendable {
    public enum Target: Equatable, Sendable {
        case device
        case buffer
        case debug
        case channel(String, output: Bool)
    }
    case print, zprint, version, exit, help, binary
    case timeout(Int)
    case open(device: String, samples: Int, mask: UInt64, cyclic: Bool)
    case close(device: String)
    case read(device: String, target: Target, attribute: String)
    case write(device: String, target: Target, attribute: String, length: Int)
    case readbuf(device: String, bytes: Int)
    case writebuf(device: String, bytes: Int)
    case gettrig(device: String)
    case settrig(device: String, trigger: String?)
    case setBuffersCount(device: String, count: Int)
    case empty
    case unknown

    public init(line: Substring) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let verb = words.first?.uppercased() else { self = .empty; return }
        let args = Array(words.dropFirst())
        self = Self.parse(verb, args) ?? .unknown
    }

    private static func parse(_ verb: String, _ a: [String]) -> IIODCommand? {
        func int(_ s: String) -> Int? { Int(s).flatMap { $0 >= 0 ? $0 : nil } }
        switch (verb, a.count) {
        case ("PRINT", 0): return .print
        case ("ZPRINT", 0): return .zprint
        case ("VERSION", 0): return .version
        case ("EXIT", 0): return .exit
        case ("HELP", 0): return .help
        case ("BINARY", 0): return .binary
        case ("TIMEOUT", 1): return int(a[0]).map { .timeout($0) }
        case ("OPEN", 3), ("OPEN", 4):
            guard let n = int(a[1]), a[2].count % 8 == 0, a[2].count <= 16, let mask = UInt64(a[2], radix: 16) else { return nil }
            if a.count == 4 && a[3].uppercased() != "CYCLIC" { return nil }
            return .open(device: a[0], samples: n, mask: mask, cyclic: a.count == 4)
        case ("CLOSE", 1): return .close(device: a[0])
        case ("READ", 2...4):
            guard let (target, rest) = target(Array(a.dropFirst())), rest.count == 1 else { return nil }
            return .read(device: a[0], target: target, attribute: rest[0])
        case ("WRITE", 3...5):
            guard let (target, rest) = target(Array(a.dropFirst())), rest.count == 2, let n = int(rest[1]) else { return nil }
            return .write(device: a[0], target: target, attribute: rest[0], length: n)
        case ("READBUF", 2): return int(a[1]).map { .readbuf(device: a[0], bytes: $0) }
        case ("WRITEBUF", 2): return int(a[1]).map { .writebuf(device: a[0], bytes: $0) }
        case ("GETTRIG", 1): return .gettrig(device: a[0])
        case ("SETTRIG", 1), ("SETTRIG", 2): return .settrig(device: a[0], trigger: a.count == 2 ? a[1] : nil)
        case ("SET", 3):
            guard a[1].uppercased() == "BUFFERS_COUNT", let n = int(a[2]) else { return nil }
            return .setBuffersCount(device: a[0], count: n)
        default: return nil
        }
    }

    /// `[DEBUG|BUFFER|INPUT chn|OUTPUT chn] rest...`
    private static func target(_ a: [String]) -> (Target, [String])? {
        guard let first = a.first else { return nil }
        switch first.uppercased() {
        case "DEBUG": return (.debug, Array(a.dropFirst()))
        case "BUFFER": return (.buffer, Array(a.dropFirst()))
        case "INPUT", "OUTPUT":
            guard a.count >= 2 else { return nil }
            return (.channel(a[1], output: first.uppercased() == "OUTPUT"), Array(a.dropFirst(2)))
        default: return (.device, a)
        }
    }
}
