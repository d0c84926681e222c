/// Whether a picture is black, measured where it is rendered: video-range luma whose mean is at
/// most `mean` and whose spread is at most `deviation`, over every 4th pixel of every 4th row.
/// `verify` calls an output frame black at a mean of 20 and a spread of 4 (`Checks.blackMean`);
/// the bounds here are looser by what encoding can move a dark picture, so a frame rendered
/// from black sources is never decoded "black" while its record says it was not.
///
/// It goes into the frame's provenance ("black"): a fade's black frames are faithful copies
/// of black source frames, not pictures lost on the way to the file.
public enum BlackPicture {
    public static let mean = 24.0, deviation = 6.0
    static let step = 4

    public static func isBlack(_ image: YUVImage) -> Bool {
        var sum = 0.0, sq = 0.0, n = 0.0
        for y in stride(from: 0, to: image.height, by: step) {
            let row = image.y.row(y)
            for x in stride(from: 0, to: image.width, by: step) {
                let l = Double(row[x])
                sum += l; sq += l * l; n += 1
            }
        }
        return judge(sum: sum, squares: sq, count: n)
    }

    /// A 10-bit picture, judged on its top eight bits (as `verify` decodes it to 8-bit gray).
    public static func isBlack(_ image: YUV16Image) -> Bool {
        var sum = 0.0, sq = 0.0, n = 0.0
        for y in stride(from: 0, to: image.height, by: step) {
            let row = image.y.row(y)
            for x in stride(from: 0, to: image.width, by: step) {
                let l = Double(min(255, (Int(row[x]) + 2) >> 2))
                sum += l; sq += l * l; n += 1
            }
        }
        return judge(sum: sum, squares: sq, count: n)
    }

    static func judge(sum: Double, squares: Double, count n: Double) -> Bool {
        guard n > 0 else { return false }
        let m = sum / n
        return m <= mean && max(0, squares / n - m * m).squareRoot() <= deviation
    }
}
