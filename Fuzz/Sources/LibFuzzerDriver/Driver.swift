// Shared by every fuzz target: hands libFuzzer the one-input callback. A target calls it from
// its `Fuzz<Name>_main` (SwiftPM names an executable's entry point so).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

nonisolated(unsafe) private var body: ((UnsafeBufferPointer<UInt8>) -> Void)?

public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
               _ fuzz: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Int32 {
    body = fuzz
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        body?(UnsafeBufferPointer(start: data, count: size))
        return 0
    }
}
