import Foundation

/// The three ways `verify --coded` writes a `CodedReport`: a JSON document, JUnit XML (one
/// testcase per check) and a self-contained HTML page with SVG plots.
extension CodedReport {
    public var verdictStrings: [String: String] {
        var v: [String: String] = [:]
        for limit in SyncLimit.all {
            if let verdict = verdicts.first(where: { $0.limit == limit }) { v[limit.key] = verdict.passed ? "pass" : "fail" } else { v[limit.key] = hasAudio ? "fail" : "skipped" }
        }
        return v
    }

    public func json() throws -> Data {
        // Three decimals; never "-0".
        func r3(_ x: Double) -> Double { let v = (x * 1000).rounded() / 1000; return v == 0 ? 0 : v }
        var doc: [String: Any] = [
            "file": file, "frames": frames, "codedSpan": [span.lowerBound, span.upperBound], "codedFrames": codedFrames,
            "missing": missing.map { ["from": $0.from, "to": $0.to, "outputFrame": $0.outputFrame] },
            "repeated": repeated.map { ["code": $0.code, "from": $0.from, "to": $0.to] },
            "reordered": reordered.map { ["code": $0.code, "outputFrame": $0.outputFrame, "after": $0.after] },
            "unreadable": unreadable.map { [$0.lowerBound, $0.upperBound] },
            "firstCode": firstCode, "lastCode": lastCode, "codesPerFrame": r3(codesPerFrame),
            "audioGaps": audioGaps.map { ["time": r3($0.time), "ms": r3($0.ms), "frame": $0.frame] },
            "audioRepeats": audioRepeats.map { ["time": r3($0.time), "ms": r3($0.ms), "frame": $0.frame] },
            "verdicts": verdictStrings,
            "checks": checks.map { ["name": $0.name, "passed": $0.passed.map { $0 as Any } ?? NSNull(), "message": $0.message] },
            "ok": ok
        ]
        if let outputRate { doc["outputFrameRate"] = r3(outputRate) }
        if let o = offset {
            doc["avOffsetMs"] =
                [
                    "mean": r3(o.mean), "min": r3(o.min), "max": r3(o.max), "driftMsPerMin": r3(o.driftMsPerMin),
                    "perSecond": o.perSecond.map { [$0.second, r3($0.ms)] as [Any] }
                ] as [String: Any]
        } else {
            doc["avOffsetMs"] = NSNull()
        }
        doc["worst"] = Dictionary(
            uniqueKeysWithValues: verdicts.map { v in
                (v.limit.key, ["second": v.worstSecond.map { $0 as Any } ?? NSNull(), "ms": v.worstMs.map { r3($0) as Any } ?? NSNull()] as [String: Any])
            })
        return try JSONSerialization.data(withJSONObject: doc, options: [.prettyPrinted, .sortedKeys])
    }

    static func xml(_ s: String) -> String {
        var o = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            case "'": o += "&apos;"
            default: o.unicodeScalars.append(ch.value < 0x20 && ch != "\n" && ch != "\t" ? " " : ch)
            }
        }
        return o
    }

    public func junit() -> String {
        let failures = checks.filter { $0.passed == false }.count, skipped = checks.filter { $0.passed == nil }.count
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<testsuites tests=\"\(checks.count)\" failures=\"\(failures)\">\n"
        x += "  <testsuite name=\"\(Self.xml("verify --coded " + file))\" tests=\"\(checks.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\" errors=\"0\">\n"
        for c in checks {
            x += "    <testcase classname=\"lockstep.verify.coded\" name=\"\(Self.xml(c.name))\""
            switch c.passed {
            case true?: x += "><system-out>\(Self.xml(c.message))</system-out></testcase>\n"
            case false?: x += "><failure message=\"\(Self.xml(c.message))\">\(Self.xml(c.message))</failure></testcase>\n"
            case nil: x += "><skipped message=\"\(Self.xml(c.message))\"/></testcase>\n"
            }
        }
        x += "  </testsuite>\n</testsuites>\n"
        return x
    }

    /// One HTML file, no outside resources: the checks, and two SVG plots.
    public func html() -> String {
        var h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>verify --coded \(Self.xml(file))</title>\n"
        h +=
            "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;text-align:left}.pass{color:#070}.fail{color:#b00}.skip{color:#777}svg{border:1px solid #ccc;margin:1em 0}</style></head><body>\n"
        h += "<h1>Timestamp sync: \(Self.xml((file as NSString).lastPathComponent))</h1>\n"
        h += "<p>\(frames) output frames; codes \(firstCode) to \(lastCode) in output frames \(span.lowerBound)-\(span.upperBound)"
        h += String(format: "; %.4f codes per output frame", codesPerFrame)
        if let o = offset { h += String(format: "; A/V offset mean %+.2f ms (positive: audio late), min %+.2f, max %+.2f, drift %+.2f ms/min", o.mean, o.min, o.max, o.driftMsPerMin) }
        h += ". Overall: <b class=\"\(ok ? "pass" : "fail")\">\(ok ? "pass" : "fail")</b></p>\n<table><tr><th>check</th><th>result</th><th>detail</th></tr>\n"
        for c in checks {
            let (cls, word) = c.passed.map { $0 ? ("pass", "pass") : ("fail", "fail") } ?? ("skip", "skipped")
            h += "<tr><td>\(Self.xml(c.name))</td><td class=\"\(cls)\">\(word)</td><td>\(Self.xml(c.message))</td></tr>\n"
        }
        h += "</table>\n<h2>A/V offset over time</h2>\n" + offsetPlot() + "\n<h2>Code against output frame</h2>\n" + codePlot() + "\n</body></html>\n"
        return h
    }

    struct Axes {
        let w = 1000.0, h = 380.0, l = 70.0, r = 20.0, t = 20.0, b = 50.0
        var x0: Double, x1: Double, y0: Double, y1: Double
        func x(_ v: Double) -> Double { l + (v - x0) / max(1e-9, x1 - x0) * (w - l - r) }
        func y(_ v: Double) -> Double { h - b - (v - y0) / max(1e-9, y1 - y0) * (h - t - b) }
        func frame(xLabel: String, yLabel: String) -> String {
            var s = "<rect x=\"\(l)\" y=\"\(t)\" width=\"\(w - l - r)\" height=\"\(h - t - b)\" fill=\"none\" stroke=\"#333\"/>"
            for v in Self.ticks(x0, x1) { s += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%@</text>", x(v), h - b + 16, Self.label(v)) }
            for v in Self.ticks(y0, y1) {
                s += String(format: "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", l, w - r, y(v), y(v))
                s += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%@</text>", l - 6, y(v) + 4, Self.label(v))
            }
            s += "<text x=\"\((l + w - r) / 2)\" y=\"\(h - 8)\" font-size=\"13\" text-anchor=\"middle\">\(xLabel)</text>"
            s += "<text x=\"16\" y=\"\((t + h - b) / 2)\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 16 \((t + h - b) / 2))\">\(yLabel)</text>"
            return s
        }
        static func label(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v) }
        static func ticks(_ lo: Double, _ hi: Double) -> [Double] {
            let span = max(hi - lo, 1e-9), raw = span / 6, p = pow(10, floor(log10(raw)))
            let step = [1.0, 2, 5, 10].map { $0 * p }.first { $0 >= raw } ?? 10 * p
            return stride(from: (lo / step).rounded(.up) * step, through: hi, by: step).map { $0 }
        }
    }

    func offsetPlot() -> String {
        guard let o = offset, !o.blocks.isEmpty else { return "<p>No audio code: no offset to plot.</p>" }
        let tMax = max(1, o.blocks.map(\.time).max()!)
        var a = Axes(x0: 0, x1: tMax, y0: min(-100, o.min - 10), y1: max(100, o.max + 10))
        a.y0 = a.y0.rounded(.down); a.y1 = a.y1.rounded(.up)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"offset-plot\" width=\"\(a.w)\" height=\"\(a.h)\" viewBox=\"0 0 \(a.w) \(a.h)\">"
        let atsc = SyncLimit.all[0], ebu = SyncLimit.all[1]
        s += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#dfd\"/>", a.l, a.y(atsc.latest), a.w - a.l - a.r, a.y(atsc.earliest) - a.y(atsc.latest))
        s += a.frame(xLabel: "video time (s)", yLabel: "A/V offset (ms, + = audio late)")
        for (v, label) in [(ebu.latest, "EBU R37 +60"), (ebu.earliest, "EBU R37 -40"), (atsc.latest, "ATSC +45"), (atsc.earliest, "ATSC -15")] {
            s += String(
                format: "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%@\" stroke-dasharray=\"6 4\"/>", a.l, a.w - a.r, a.y(v), a.y(v), label.hasPrefix("EBU") ? "#c60" : "#070")
            s += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">%@</text>", a.w - a.r - 4, a.y(v) - 3, label)
        }
        s += "<polyline fill=\"none\" stroke=\"#14c\" stroke-width=\"1.5\" points=\""
        s += o.blocks.map { String(format: "%.1f,%.1f", a.x($0.time), a.y($0.ms)) }.joined(separator: " ") + "\"/>"
        for b in o.blocks where !SyncLimit.all[0].holds(b.ms) { s += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#b00\"/>", a.x(b.time), a.y(b.ms)) }
        return s + "</svg>"
    }

    func codePlot() -> String {
        let lo = Double(min(firstCode, reordered.map(\.code).min() ?? firstCode)), hi = Double(max(lastCode, firstCode + 1))
        let a = Axes(x0: 0, x1: Double(max(frames - 1, 1)), y0: lo, y1: hi)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"code-plot\" width=\"\(a.w)\" height=\"\(a.h)\" viewBox=\"0 0 \(a.w) \(a.h)\">"
        s += a.frame(xLabel: "output frame", yLabel: "frame code")
        // The ideal: one code per output frame from the first.
        s += String(
            format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\" stroke-dasharray=\"4 4\"/>",
            a.x(Double(span.lowerBound)), a.y(Double(firstCode)), a.x(Double(span.upperBound)), a.y(Double(firstCode + span.count - 1)))
        s += "<polyline fill=\"none\" stroke=\"#14c\" stroke-width=\"1.5\" points=\""
        s +=
            stride(from: span.lowerBound, through: span.upperBound, by: max(1, span.count / 2000)).compactMap { i in codeAt[i].map { String(format: "%.1f,%.1f", a.x(Double(i)), a.y(Double($0))) } }
            .joined(separator: " ") + "\"/>"
        // Each run of missing codes is a bar from half a code below its first to half a code
        // above its last, at least 8 px tall: a single missing code was a line from y(c) to
        // y(c), of no length, drawn invisibly.
        for m in missing {
            let top = a.y(Double(m.to) + 0.5), bottom = a.y(Double(m.from) - 0.5)
            let height = max(8, bottom - top), middle = (top + bottom) / 2
            s += String(
                format: "<rect class=\"missing\" x=\"%.1f\" y=\"%.1f\" width=\"4\" height=\"%.1f\" fill=\"#b00\"><title>missing %d-%d</title></rect>",
                a.x(Double(m.outputFrame)) - 2, middle - height / 2, height, m.from, m.to)
        }
        for r in repeated { s += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#e80\"><title>code %d repeated</title></circle>", a.x(Double(r.from)), a.y(Double(r.code)), r.code) }
        for r in reordered {
            s += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#a0a\"><title>code %d out of order</title></circle>", a.x(Double(r.outputFrame)), a.y(Double(r.code)), r.code)
        }
        s +=
            "<text x=\"80\" y=\"36\" font-size=\"12\" fill=\"#b00\">| missing codes</text><text x=\"190\" y=\"36\" font-size=\"12\" fill=\"#e80\">&#9679; repeated</text><text x=\"280\" y=\"36\" font-size=\"12\" fill=\"#a0a\">&#9679; out of order</text>"
        return s + "</svg>"
    }
}
