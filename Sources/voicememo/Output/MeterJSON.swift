/// One reading of a level meter as `meter --json` prints it, one object per line: seconds of input measured
/// since the meter started, and each channel's peak and average over the input since the previous line, in dBFS.
struct MeterJSON: Encodable {
    let time: Double
    let peakDBFS: [Double]
    let averageDBFS: [Double]

    init(time: Double, peak: [Double], average: [Double]) {
        self.time = (time * 1000).rounded() / 1000
        peakDBFS = peak.map(MemoJSON.rounded)
        averageDBFS = average.map(MemoJSON.rounded)
    }
}
