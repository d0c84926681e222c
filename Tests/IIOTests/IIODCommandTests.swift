import XCTest

@testable import IIO

final class IIODCommandTests: XCTestCase {
    func parse(_ s: String) -> IIODCommand { IIODCommand(line: Substring(s)) }

    func testWhatA024ClientSends() {
        XCTAssertEqual(parse("PRINT\r"), .print)
        XCTAssertEqual(parse("TIMEOUT 2500\r"), .timeout(2500))
        XCTAssertEqual(parse("READ iio:device0 INPUT anglvel_x scale\r"), .read(device: "iio:device0", target: .channel("anglvel_x", output: false), attribute: "scale"))
        XCTAssertEqual(parse("READ iio:device0 sampling_frequency"), .read(device: "iio:device0", target: .device, attribute: "sampling_frequency"))
        XCTAssertEqual(parse("READ iio:device0 BUFFER enable"), .read(device: "iio:device0", target: .buffer, attribute: "enable"))
        XCTAssertEqual(parse("WRITE iio:device0 sampling_frequency 11\r"), .write(device: "iio:device0", target: .device, attribute: "sampling_frequency", length: 11))
        XCTAssertEqual(parse("OPEN iio:device0 8 0000000f\r"), .open(device: "iio:device0", samples: 8, mask: 0xf, cyclic: false))
        XCTAssertEqual(parse("OPEN iio:device0 8 0000000f CYCLIC"), .open(device: "iio:device0", samples: 8, mask: 0xf, cyclic: true))
        XCTAssertEqual(parse("READBUF iio:device0 128\r"), .readbuf(device: "iio:device0", bytes: 128))
        XCTAssertEqual(parse("SET iio:device0 BUFFERS_COUNT 4"), .setBuffersCount(device: "iio:device0", count: 4))
        XCTAssertEqual(parse("GETTRIG iio:device0"), .gettrig(device: "iio:device0"))
        XCTAssertEqual(parse("SETTRIG iio:device0"), .settrig(device: "iio:device0", trigger: nil))
        XCTAssertEqual(parse("CLOSE iio:device0\r"), .close(device: "iio:device0"))
        XCTAssertEqual(parse("\r"), .empty)
        XCTAssertEqual(parse("EXIT\r"), .exit)
        XCTAssertEqual(parse("BINARY"), .binary)
        XCTAssertEqual(parse("ZPRINT"), .zprint)
    }

    func testMalformedCommandsAreUnknown() {
        for line in [
            "FROB", "READBUF iio:device0 -1", "READBUF iio:device0", "OPEN iio:device0 8 xyz", "OPEN iio:device0 8 0f",
            "OPEN iio:device0 8 0000000f LOOPING", "TIMEOUT soon", "READ iio:device0", "READ iio:device0 INPUT",
            "WRITE iio:device0 attr", "SET iio:device0 COLOUR 4", "PRINT extra"
        ] {
            XCTAssertEqual(parse(line), .unknown, line)
        }
    }
}
