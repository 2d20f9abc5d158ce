/// The outline of a recording, as audio editors and web players draw it: for every ``samplesPerPixel`` frames (a
/// "pixel"), the lowest and the highest sample of each channel, on a 16-bit scale (−32768…32767).
///
/// It is what audiowaveform (BBC) computes and peaks.js draws: ``datRepresentation(bits:)`` and
/// ``init(datRepresentation:)`` write and read audiowaveform's binary `.dat` format. A recording's waveform is measured
/// once, from the samples that pass through anyway — ``AudioRecorder/summary`` and ``AudioFileConverter``'s summaries
/// carry it, at ``standardSamplesPerPixel`` or, for a recording longer than ``keptLength`` such pixels, at the
/// power-of-two multiple of it that keeps it within that many (so that an hour's recording does not grow its memory
/// with its waveform) — or from a file at any resolution with ``init(measuring:samplesPerPixel:)``.
///
/// ```swift
/// let waveform = try Waveform(measuring: AudioFile(forReading: url))
/// let loudest = waveform.peak(ofPixels: 0..<waveform.length)   // 0…1
/// try Data(waveform.datRepresentation()).write(to: datURL)    // for peaks.js
/// ```
public struct Waveform: Equatable, Sendable {
    /// Frames per pixel a recording's waveform is measured at: audiowaveform's default zoom (`-z 256`), about 190
    /// pixels a second at 48 kHz.
    public static let standardSamplesPerPixel = 256

    /// The most pixels per channel a waveform measured on the way (a recording's, a conversion's) keeps: 65,536, some
    /// 6 minutes at 48 kHz in ``standardSamplesPerPixel``; past them it halves its pixels and doubles their width.
    public static let keptLength = 65_536

    /// Frames per second of the audio measured, in hertz.
    public let sampleRate: Int
    /// Frames each pixel covers (the last pixel may cover fewer: what was left).
    public let samplesPerPixel: Int
    /// Channels of the audio measured, each with its own outline.
    public let channelCount: Int
    /// The pixels, interleaved as audiowaveform's files have them: for pixel `p` and channel `c`, the minimum at
    /// `(p × channelCount + c) × 2` and the maximum right after it.
    public let data: [Int16]

    /// Pixels per channel.
    public var length: Int { data.count / (2 * channelCount) }

    /// Seconds of audio a pixel covers.
    public var secondsPerPixel: Double { Double(samplesPerPixel) / Double(sampleRate) }

    /// A waveform from its parts.
    ///
    /// - Precondition: `sampleRate`, `samplesPerPixel` and `channelCount` are positive, and `data` holds a whole number
    ///   of pixels of `channelCount` (minimum, maximum) pairs.
    public init(sampleRate: Int, samplesPerPixel: Int, channelCount: Int, data: [Int16]) {
        precondition(sampleRate > 0 && samplesPerPixel > 0 && channelCount > 0 && data.count % (2 * channelCount) == 0)
        self.sampleRate = sampleRate
        self.samplesPerPixel = samplesPerPixel
        self.channelCount = channelCount
        self.data = data
    }

    /// The lowest sample of `channel` in `pixel`.
    public func minimum(pixel: Int, channel: Int) -> Int16 { data[(pixel * channelCount + channel) * 2] }

    /// The highest sample of `channel` in `pixel`.
    public func maximum(pixel: Int, channel: Int) -> Int16 { data[(pixel * channelCount + channel) * 2 + 1] }

    /// The largest magnitude in `pixels` of any channel, 0…1 (1 is full scale): what a one-sided drawing shows.
    public func peak(ofPixels pixels: Range<Int>) -> Double {
        var largest = 0
        for index in (pixels.lowerBound * 2 * channelCount)..<(pixels.upperBound * 2 * channelCount) {
            largest = max(largest, abs(Int(data[index])))
        }
        return Double(largest) / 32768
    }

    /// The same outline with `factor` pixels made one (the lowest minimum and highest maximum of each run), as
    /// audiowaveform draws a wider zoom from a finer one.
    ///
    /// - Precondition: `factor` ≥ 1.
    public func zoomedOut(by factor: Int) -> Waveform {
        precondition(factor >= 1)
        guard factor > 1 else { return self }
        let pixels = (length + factor - 1) / factor
        var zoomed = [Int16](repeating: 0, count: pixels * 2 * channelCount)
        for pixel in 0..<pixels {
            let run = (pixel * factor)..<min((pixel + 1) * factor, length)
            for channel in 0..<channelCount {
                zoomed[(pixel * channelCount + channel) * 2] = run.map { minimum(pixel: $0, channel: channel) }.min()!
                zoomed[(pixel * channelCount + channel) * 2 + 1] = run.map { maximum(pixel: $0, channel: channel) }.max()!
            }
        }
        return Waveform(sampleRate: sampleRate, samplesPerPixel: samplesPerPixel * factor, channelCount: channelCount, data: zoomed)
    }

    /// Measures `file` from its ``AudioFile/framePosition`` to its end, at `samplesPerPixel` however long it is.
    ///
    /// - Parameters:
    ///   - file: The audio to measure; read through (a long file takes as long as decoding it).
    ///   - samplesPerPixel: Frames per pixel, 2 or more.
    /// - Throws: ``AudioFileError`` when reading fails.
    public init(measuring file: AudioFile, samplesPerPixel: Int = Waveform.standardSamplesPerPixel) throws(AudioFileError) {
        self = try file.measure(samplesPerPixel: samplesPerPixel, keepingAtMost: nil).waveform
    }
}

/// Builds a ``Waveform`` from interleaved float samples as they pass, pixel by pixel: the recording writer's and the
/// converter's, beside their levels. With a `maximumLength`, its pixels never outnumber it: when they reach it, each
/// two become one (as ``Waveform/zoomedOut(by:)`` makes them) and the pixels to come are twice as wide, so that its
/// memory stops growing however long the recording.
///
/// **Threads**: not for a real-time thread: its array grows until it reaches its bound.
struct WaveformBuilder {
    let sampleRate: Int
    private(set) var samplesPerPixel: Int
    let channelCount: Int
    /// The most pixels per channel, an even number; `nil` for no bound.
    let maximumLength: Int?
    private var data: [Int16] = []
    /// The running minimum and maximum of each channel in the pixel being filled, as ``order(_:)`` keys.
    private var low: [Int32]
    private var high: [Int32]
    /// Frames in the pixel being filled.
    private var filled = 0

    init(channelCount: Int, sampleRate: Double, samplesPerPixel: Int = Waveform.standardSamplesPerPixel, maximumLength: Int?) {
        self.channelCount = channelCount
        self.sampleRate = Int(sampleRate.rounded())
        self.samplesPerPixel = samplesPerPixel
        self.maximumLength = maximumLength.map { max($0 / 2 * 2, 2) }
        if let maximumLength = self.maximumLength { data.reserveCapacity(2 * channelCount * maximumLength) }
        low = Array(repeating: Self.order(.infinity), count: channelCount)
        high = Array(repeating: Self.order(-.infinity), count: channelCount)
    }

    /// Adds interleaved frames of ``channelCount`` channels.
    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        let frames = samples.count / channelCount
        var frame = 0
        while frame < frames {
            let run = min(samplesPerPixel - filled, frames - frame)
            for channel in 0..<channelCount {
                // A mono block is one run of samples: with the stride a constant the loop is vectorised.
                (low[channel], high[channel]) = channelCount == 1
                    ? Self.extremes(samples, from: frame, count: run, stride: 1, low[0], high[0])
                    : Self.extremes(samples, from: frame * channelCount + channel, count: run, stride: channelCount, low[channel], high[channel])
            }
            filled += run
            frame += run
            if filled == samplesPerPixel { closePixel() }
        }
    }

    /// The lowest and the highest of `lowest`, `highest` and `count` samples from `start` on, `stride` apart, as
    /// ``order(_:)`` keys: integers, whose minimum and maximum the compiler vectorises, where a float's must keep the
    /// order of its comparisons for NaNs.
    @inline(__always)
    private static func extremes(
        _ samples: UnsafeBufferPointer<Float>, from start: Int, count: Int, stride: Int, _ lowest: Int32, _ highest: Int32
    ) -> (Int32, Int32) {
        var (lowest, highest) = (lowest, highest)
        var index = start
        for _ in 0..<count {
            // NaN and ±infinity are drawn as silence, as they are measured (see NonFiniteSamples).
            let key = order(NonFiniteSamples.finite(samples[index]))
            lowest = min(lowest, key)
            highest = max(highest, key)
            index += stride
        }
        return (lowest, highest)
    }

    /// An integer that orders as `sample` does (−0 just below +0): its bits, the magnitude's turned over for a negative
    /// number.
    @inline(__always)
    private static func order(_ sample: Float) -> Int32 {
        let bits = Int32(bitPattern: sample.bitPattern)
        return bits ^ ((bits >> 31) & 0x7FFF_FFFF)
    }

    /// The sample whose ``order(_:)`` is `key`: the same turn, undone.
    private static func sample(ordered key: Int32) -> Float {
        Float(bitPattern: UInt32(bitPattern: key ^ ((key >> 31) & 0x7FFF_FFFF)))
    }

    /// The waveform of everything added, its last pixel holding what was left (as audiowaveform's has it).
    var waveform: Waveform {
        var finished = self
        if finished.filled > 0 { finished.closePixel() }
        return Waveform(sampleRate: max(sampleRate, 1), samplesPerPixel: samplesPerPixel, channelCount: channelCount, data: finished.data)
    }

    private mutating func closePixel() {
        for channel in 0..<channelCount {
            data.append(Self.sixteenBit(Self.sample(ordered: low[channel])))
            data.append(Self.sixteenBit(Self.sample(ordered: high[channel])))
            low[channel] = Self.order(.infinity)
            high[channel] = Self.order(-.infinity)
        }
        filled = 0
        if let maximumLength, data.count == 2 * channelCount * maximumLength { halve() }
    }

    /// Makes each two pixels one, in place, and the pixels to come twice as wide.
    private mutating func halve() {
        let stride = 2 * channelCount
        for pixel in 0..<(data.count / stride / 2) {
            for channel in 0..<channelCount {
                let first = (2 * pixel * channelCount + channel) * 2, second = first + stride
                data[(pixel * channelCount + channel) * 2] = min(data[first], data[second])
                data[(pixel * channelCount + channel) * 2 + 1] = max(data[first + 1], data[second + 1])
            }
        }
        data.removeLast(data.count / 2)
        samplesPerPixel *= 2
    }

    /// A sample on the 16-bit scale, rounded down: a 16-bit file's own value, and a 24-bit one's top 16 bits, as
    /// libsndfile reads them for audiowaveform. Beyond full scale it is full scale (clamped before it becomes an
    /// integer, which a value past `Int`'s range would trap); NaN is 0.
    static func sixteenBit(_ sample: Float) -> Int16 {
        guard !sample.isNaN else { return 0 }
        return Int16(min(max((Double(sample) * 32768).rounded(.down), -32768), 32767))
    }
}
