import LibFuzzerDriver
import Motion

// A blackbox log or an ArduPilot DataFlash log comes straight from the user's flight controller:
// decoding it must never trap, and every sample it yields must have finite values and strictly
// increasing times. The bytes are tried as they are and behind a valid header (so the frame or
// message loop, not only the header, is reached).
let header = Array(("H Product:Blackbox flight data recorder by Nicholas Sherlock\nH Data version:2\n"
    + "H Field I name:loopIteration,time,gyroADC[0],gyroADC[1],gyroADC[2],accSmooth[0],accSmooth[1],accSmooth[2],motor[0],motor[1]\n"
    + "H Field I signed:0,0,1,1,1,1,1,1,0,0\nH Field I predictor:0,0,0,0,0,0,0,0,11,5\nH Field I encoding:1,1,0,0,0,0,0,0,1,0\n"
    + "H Field P predictor:6,2,3,3,3,1,1,1,3,3\nH Field P encoding:9,0,10,10,10,8,8,8,8,6\n"
    + "H Field S name:flightModeFlags,stateFlags\nH Field S signed:0,0\nH Field S predictor:0,0\nH Field S encoding:1,7\n"
    + "H Firmware type:Cleanflight\nH I interval:32\nH P interval:1/2\nH gyro_scale:0x3f800000\nH acc_1G:2048\n").utf8)

func check(_ logs: [BlackboxLog]) {
    for log in logs {
        var last = Int64.min
        for r in log.readings {
            precondition(r.t > last, "times must increase")
            precondition(r.gyro.x.isFinite && r.gyro.y.isFinite && r.gyro.z.isFinite, "finite gyro")
            last = r.t
        }
        _ = log.warnings
        _ = log.info(source: "fuzz")
    }
}

// DataFlash: FMT for FMT, and FMT for a 4.x IMU message (type 42, 54 bytes with the header).
func dataflashFMT(_ type: UInt8, _ length: UInt8, _ name: String, _ format: String, _ columns: String) -> [UInt8] {
    func text(_ s: String, _ n: Int) -> [UInt8] { Array(s.utf8.prefix(n)) + [UInt8](repeating: 0, count: max(0, n - s.utf8.count)) }
    return [0xA3, 0x95, 128, type, length] + text(name, 4) + text(format, 16) + text(columns, 64)
}
let dataflashHeader = dataflashFMT(128, 89, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns")
    + dataflashFMT(42, 54, "IMU", "QBffffffIIfBBHH", "TimeUS,I,GyrX,GyrY,GyrZ,AccX,AccY,AccZ,EG,EA,T,GH,AH,GHz,AHz")

func check(_ log: DataFlashDecoder.Log) {
    for instance in log.instances {
        var last = Int64.min
        for r in instance.readings {
            precondition(r.t > last, "times must increase")
            precondition(r.gyro.x.isFinite && r.gyro.y.isFinite && r.gyro.z.isFinite, "finite gyro")
            if let a = r.accel { precondition(a.x.isFinite && a.y.isFinite && a.z.isFinite, "finite accelerometer") }
            last = r.t
        }
    }
    _ = log.warnings
}

func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    check(DataFlashDecoder.decode(bytes))
    check(DataFlashDecoder.decode(dataflashHeader + Array(bytes)))
    check(BlackboxDecoder.decode(bytes))
    check(BlackboxDecoder.decode(header + Array(bytes)))
    var csv = BlackboxCSV(source: "fuzz.csv")
    for (n, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(200).enumerated() { _ = try? csv.line(line, number: n + 1) }
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzBlackbox_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { fuzzOne($0) }
}
