import Foundation
import Motion
import XCTest

final class BlackboxProbeTests: XCTestCase {
    func testProbe() throws {
        for path in ["/tmp/bbl/LOG00037.BFL", "/tmp/bbl/btfl_001.bbl", "/tmp/bbl/btfl_002.bbl", "/tmp/bbl/btfl_all.bbl"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let clock = ContinuousClock()
            var logs: [BlackboxLog] = []
            let took = clock.measure { logs = BlackboxDecoder.decode(bytes) }
            print(path, logs.count, "logs in", took)
            for l in logs where !l.readings.isEmpty || l.problem != nil {
                let r = l.readings
                print("  #\(l.number) n=\(r.count) frames=\(l.frames) corrupt=\(l.corruptFrames) dropped=\(l.droppedFrames) lost=\(l.lostIterations) trunc=\(String(describing: l.truncatedAt)) end=\(l.endMarker) first=\(r.first.map { String($0.t) } ?? "-") last=\(r.last.map { String($0.t) } ?? "-") g0=\(r.first.map { "\($0.gyro * 180 / .pi)" } ?? "-") problem=\(l.problem ?? "-")")
                for w in l.warnings { print("    ", w) }
            }
        }
    }
}
