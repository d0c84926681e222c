/// Text from a file, made fit for a one-line message: a bad line may be 100 MB long or carry
/// terminal escape sequences, and neither may reach the user's terminal as is.
public enum MessageText {
    /// At most `limit` characters of `text` (then "..."), with control characters, escape
    /// sequences and bidirectional overrides shown as `\n`, `\t`, `\r`, `\0` or `\u{1B}`.
    public static func quote(_ text: some StringProtocol, limit: Int = 80) -> String {
        var out = ""
        var shown = 0
        for scalar in text.unicodeScalars {
            if shown == limit { return out + "..." }
            shown += 1
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x00: out += "\\0"
            case 0x5C: out += "\\\\"
            case 0..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
