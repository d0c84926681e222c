extension PlaneKernels {
    /// Paints everything of `image` outside `picture` with the picture's nearest edge pixel:
    /// each row's ends repeat its first and last pixel, the rows above and below repeat its top
    /// and bottom row. A keyed foreground smaller than the canvas gets its own screen around it
    /// this way, so the keyer measures the screen the plate has (a flat margin in the key colour
    /// would be measured as screen too, and a key colour unlike the plate's screen then leaves
    /// the whole screen half keyed). `picture` on even pixels, inside the image.
    public static func extendEdges(_ image: YUVImage, picture: Rect) {
        precondition(picture.x % 2 == 0 && picture.y % 2 == 0 && picture.width >= 2 && picture.height >= 2)
        extendPlane(image.y, x: picture.x, y: picture.y, width: picture.width, height: picture.height)
        let cw = (picture.width + 1) / 2, ch = (picture.height + 1) / 2
        extendPlane(image.u, x: picture.x / 2, y: picture.y / 2, width: cw, height: ch)
        extendPlane(image.v, x: picture.x / 2, y: picture.y / 2, width: cw, height: ch)
    }

    static func extendPlane(_ p: Plane, x: Int, y: Int, width: Int, height: Int) {
        let right = min(x + width, p.width), bottom = min(y + height, p.height)
        guard right > x, bottom > y else { return }
        for r in y..<bottom {
            let row = p.row(r)
            if x > 0 { (row).update(repeating: row[x], count: x) }
            if right < p.width { (row + right).update(repeating: row[right - 1], count: p.width - right) }
        }
        for r in 0..<y { p.row(r).update(from: p.row(y), count: p.width) }
        for r in bottom..<p.height { p.row(r).update(from: p.row(bottom - 1), count: p.width) }
    }
}
