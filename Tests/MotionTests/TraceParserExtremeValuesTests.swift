import Foundation
import Motion
import XCTest

/// A property test over extreme values for the trace parsers and the calibration profile
/// (issue 26): every field of a row, every header scale, every profile number at and past its
/// edges gives a sample in range or a one-line error naming the file and line; never a trap.
/// (A CSV time of Int64.min trapped in abs() in every command that read it.)
final class TraceParserExtremeValuesTests: XCTestCase {
    static let numbers = [
        "0", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "2300000000000000000", "-2300000000000000001", "1e308", "-1e308", "1e309", "4.9e-324", "nan", "inf", "-inf",
        "0x10", "1e3", "", "-", "99999999999999999999999"
    ]

    func check(_ text: String, _ format: TraceFormat, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let (_, samples) = try TraceParser.parse(Array(text.utf8), format: format, source: "t.\(format.rawValue)")
            for s in samples {
                XCTAssertLessThanOrEqual(s.t.magnitude, UInt64(TraceParser.maxTimestamp), text, file: file, line: line)
                XCTAssertTrue(s.gyro.x.isFinite && s.gyro.y.isFinite && s.gyro.z.isFinite, text, file: file, line: line)
                if let a = s.accel { XCTAssertTrue(a.x.isFinite && a.y.isFinite && a.z.isFinite, text, file: file, line: line) }
            }
        } catch let e as TraceFileError {
            XCTAssertTrue(e.description.hasPrefix("t.\(format.rawValue)"), e.description, file: file, line: line)
            XCTAssertFalse(e.description.contains("\n"), file: file, line: line)
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
        }
    }

    func testEveryCSVFieldAtItsEdges() {
        for v in Self.numbers {
            for column in 0..<7 {
                var fields = ["5000000", "0.1", "0.2", "0.3", "0", "0", "9.8"]
                fields[column] = v
                check("t_ns,gx,gy,gz,ax,ay,az\n0,0,0,0,0,0,9.8\n" + fields.joined(separator: ",") + "\n", .csv)
            }
        }
    }

    func testEveryGcsvScaleAndTickAtItsEdges() {
        for v in Self.numbers {
            for header in ["tscale,\(v)\ngscale,1\nascale,1", "tscale,0.001\ngscale,\(v)\nascale,1", "tscale,0.001\ngscale,1\nascale,\(v)"] {
                check("GYROFLOW IMU LOG\n\(header)\nt,gx,gy,gz,ax,ay,az\n0,1,2,3,4,5,6\n\(v),1,2,3,4,5,6\n", .gcsv)
            }
        }
    }

    func testEveryProfileNumberAtItsEdges() {
        for v in Self.numbers where !v.isEmpty && v != "-" {
            for key in ["focalLengthPx", "timeOffsetMs", "frameReadoutMs", "horizontalFOVDeg"] {
                let json = #"{"name":"x","axisMapping":"XYZ","focalLengthPx":300,"timeOffsetMs":0,"gyroBias":[0,0,0],"frameReadoutMs":0,"\#(key)":\#(v)}"#
                do {
                    let c = try Calibration.decode(Data(json.utf8), source: "p.json")
                    XCTAssertTrue(c.timeOffsetMs.isFinite, json)
                } catch {
                    XCTAssertFalse("\(error)".contains("\n"), json)
                }
            }
        }
    }
}
