extension Int64 {
    /// `seconds` at `rate` frames per second as a whole number of frames, rounded, and kept within
    /// 0 ... `Int64.max / 4`: whatever time a caller passes (negative, NaN, infinite, absurdly far) becomes
    /// a frame the engines can compare and add to without overflowing.
    init(frames seconds: Double, rate: Double) {
        let frames = (seconds * rate).rounded()
        guard frames > 0 else {
            self = 0
            return
        }
        self = frames < Double(Int64.max / 4) ? Int64(frames) : Int64.max / 4
    }
}
