/// Whether a picture is black, measured where it is rendered: video-range luma whose mean is at
/// most `mean` and whose spread is at most `deviation`, over every 4th pixel of every 4th row.
/// `verify` calls an output frame black at a mean of 20 and a spread of 4 (`Checks.blackMean`);
/// the bounds here are looser by what encoding can move a dark picture, so a frame rendered
/// from black sources is never decoded "black" while its record says it was not.
///
/// It goes into the frame's provenance ("black"): a fade's black frames are faithful copies
/// of black source frames, not pictures lost on the way to the file.
///
/// Every output frame is judged, so the sums are integers (exact, as the Doubles they replaced
/// were below 2^53) and the scan stops as soon as the luma seen so far already puts the mean
/// over `mean`: most pictures are not black, and their first rows tell.
public enum BlackPicture {
    public static let mean = 24.0, deviation = 6.0
    static let step = 4

    public static func isBlack(_ image: YUVImage) -> Bool {
        judge(width: image.width, height: image.height, row: { image.y.row($0) }, sample: { Int($0) })
    }

    /// A 10-bit picture, judged on its top eight bits (as `verify` decodes it to 8-bit gray).
    public static func isBlack(_ image: YUV16Image) -> Bool {
        judge(width: image.width, height: image.height, row: { image.y.row($0) }, sample: { min(255, (Int($0) + 2) >> 2) })
    }

    @inline(__always)
    private static func judge<Sample>(
        width: Int, height: Int, row: (Int) -> UnsafeMutablePointer<Sample>, sample: (Sample) -> Int
    ) -> Bool {
        let count = ((width + step - 1) / step) * ((height + step - 1) / step)
        guard count > 0 else { return false }
        // A sum over this can only end with a mean over `mean`.
        let most = Int((mean * Double(count)).rounded(.down))
        var sum = 0, squares = 0
        for y in stride(from: 0, to: height, by: step) {
            let r = row(y)
            for x in stride(from: 0, to: width, by: step) {
                let l = sample(r[x])
                sum += l; squares += l * l
            }
            if sum > most { return false }
        }
        let n = Double(count), m = Double(sum) / n
        return m <= mean && max(0, Double(squares) / n - m * m).squareRoot() <= deviation
    }
}
