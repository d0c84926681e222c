// The same in every fuzz target (each is its own module): hand libFuzzer the one-input callback.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

nonisolated(unsafe) private var body: ((UnsafeBufferPointer<UInt8>) -> Void)?

func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
               _ fuzz: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Int32 {
    body = fuzz
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        body?(UnsafeBufferPointer(start: data, count: size))
        return 0
    }
}
