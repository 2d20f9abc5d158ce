import SystemEdge

/// Peak and average (RMS) level of each channel, in dBFS.
///
/// 0 dBFS is full scale; a full-scale sine has peak 0 and average −3.01; silence is −160 (``floor``).
/// These are the definitions of sox's `stats` effect (`Pk lev dB`, `RMS lev dB`).
public struct AudioLevels: Equatable, Sendable, Codable {
    /// The level reported for silence and anything quieter, in dBFS.
    public static let floor = -160.0

    /// Per channel, 20·log10 of the largest absolute sample value; in −160…0 for samples in −1…1.
    public var peak: [Double]
    /// Per channel, 20·log10 of the root mean square of the samples; in −160…0 for samples in −1…1.
    public var average: [Double]

    /// Creates levels from per-channel values in dBFS.
    public init(peak: [Double], average: [Double]) {
        self.peak = peak
        self.average = average
    }

    /// `amplitude` (a linear value, 1 = full scale) in dBFS, never below ``floor``.
    public static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(floor, 20 * Math.log10(amplitude)) : floor
    }

    /// The linear gain of `decibels` (0 dB is 1).
    static func amplitude(_ decibels: Double) -> Double {
        Math.pow(10, decibels / 20)
    }

    /// The peak of `channel` (0-based) as a meter reports it: ``floor`` for a channel it does not have.
    func peakPower(forChannel channel: Int) -> Float {
        Float(peak.indices.contains(channel) ? peak[channel] : Self.floor)
    }

    /// The average of `channel` (0-based) as a meter reports it: ``floor`` for a channel it does not have.
    func averagePower(forChannel channel: Int) -> Float {
        Float(average.indices.contains(channel) ? average[channel] : Self.floor)
    }
}

/// Sums what peak and RMS need, channel by channel, over any number of interleaved blocks.
///
/// Storage is allocated once, in `init`; ``add(_:)`` allocates nothing, so the render and capture threads
/// can use it.
struct LevelAccumulator {
    private var peaks: [Float]
    private var squareSums: [Double]
    private(set) var frameCount = 0

    init(channelCount: Int) {
        peaks = Array(repeating: 0, count: channelCount)
        squareSums = Array(repeating: 0, count: channelCount)
    }

    var channelCount: Int { peaks.count }

    /// Adds interleaved frames of ``channelCount`` channels.
    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        let channels = peaks.count
        let frames = samples.count / channels
        peaks.withUnsafeMutableBufferPointer { peaks in
            squareSums.withUnsafeMutableBufferPointer { sums in
                for channel in 0..<channels {
                    // Four running sums and peaks, so that each addition need not wait for the one before
                    // (a converter meters every sample of a file); summed in a fixed order at the end. The indices
                    // stay inside the block: computed without overflow checks, which cost a third of the loop.
                    var peak = (peaks[channel], Float(0), Float(0), Float(0))
                    var sum = (0.0, 0.0, 0.0, 0.0)
                    var index = channel
                    // NaN and ±infinity count as silence (see NonFiniteSamples): levels stay numbers.
                    for _ in 0..<(frames / 4) {
                        let a = NonFiniteSamples.finite(samples[index]), b = NonFiniteSamples.finite(samples[index &+ channels])
                        let c = NonFiniteSamples.finite(samples[index &+ 2 &* channels])
                        let d = NonFiniteSamples.finite(samples[index &+ 3 &* channels])
                        peak = (Self.louder(peak.0, a), Self.louder(peak.1, b), Self.louder(peak.2, c), Self.louder(peak.3, d))
                        sum.0 += Double(a) * Double(a)
                        sum.1 += Double(b) * Double(b)
                        sum.2 += Double(c) * Double(c)
                        sum.3 += Double(d) * Double(d)
                        index &+= 4 &* channels
                    }
                    for _ in 0..<(frames % 4) {
                        let sample = NonFiniteSamples.finite(samples[index])
                        peak.0 = Self.louder(peak.0, sample)
                        sum.0 += Double(sample) * Double(sample)
                        index &+= channels
                    }
                    peaks[channel] = Self.louder(Self.louder(peak.0, peak.1), Self.louder(peak.2, peak.3))
                    sums[channel] += (sum.0 + sum.1) + (sum.2 + sum.3)
                }
            }
        }
        frameCount += frames
    }

    /// The larger of `peak` and `sample`'s magnitude: concrete, so that even an unoptimized build (the tests') meters
    /// a file at memory speed, where the generic `max` and `abs` cost a call each.
    @inline(__always)
    private static func louder(_ peak: Float, _ sample: Float) -> Float {
        let magnitude = sample.magnitude
        return magnitude > peak ? magnitude : peak
    }

    /// The levels of everything added since the start or the last ``reset()``.
    var levels: AudioLevels { levels { _ in (1, 1) } }

    /// The levels of everything added since the start or the last ``reset()``, each channel's scaled by the gains
    /// `gains(channel)` gives: one for the peak, one for the average (RMS).
    func levels(scaledBy gains: (_ channel: Int) -> (peak: Double, average: Double)) -> AudioLevels {
        let frames = Double(max(frameCount, 1))
        return AudioLevels(
            peak: peaks.indices.map { AudioLevels.decibels(Double(peaks[$0]) * gains($0).peak) },
            average: squareSums.indices.map { AudioLevels.decibels((squareSums[$0] / frames).squareRoot() * gains($0).average) })
    }

    /// Values in a sums record: the frame count, then each channel's peak and sum of squares.
    var recordLength: Int { 1 + 2 * peaks.count }

    /// Writes the sums as a record of ``recordLength`` values into `record`, for ``merge(_:)`` on another
    /// thread; allocates nothing.
    func write(into record: UnsafeMutableBufferPointer<Double>) {
        record[0] = Double(frameCount)
        for channel in peaks.indices {
            record[1 + 2 * channel] = Double(peaks[channel])
            record[2 + 2 * channel] = squareSums[channel]
        }
    }

    /// Adds the sums of a record that ``write(into:)`` made.
    mutating func merge(_ record: UnsafeBufferPointer<Double>) {
        frameCount += Int(record[0])
        for channel in peaks.indices {
            peaks[channel] = max(peaks[channel], Float(record[1 + 2 * channel]))
            squareSums[channel] += record[2 + 2 * channel]
        }
    }

    /// Starts over, keeping the storage.
    mutating func reset() {
        for channel in peaks.indices {
            peaks[channel] = 0
            squareSums[channel] = 0
        }
        frameCount = 0
    }
}
