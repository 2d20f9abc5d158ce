import AudioIO
import Benchmark
import Glibc

/// What measuring loudness adds to a recording: the writer thread feeds `AudioMeasurement` (levels and, through
/// libebur128, integrated loudness, range and true peak) every block it writes, and reads the result when the
/// recording ends. 10 minutes of a voice memo's audio: mono, 48 kHz, noise whose level moves as speech's does.
///
/// - `loudness-at-the-end-of-10-minutes`: one sample is what the end of a 10-minute recording costs: the result,
///   after the 10 minutes were fed (outside the measured region). The goal: under 0.3 s.
/// - `loudness-of-10-minutes-as-recorded`: one sample is the whole measure of 10 minutes, block by block (0.2 s
///   blocks, as the writer writes) and the result: the CPU the measure takes over the recording, spread over it.
let benchmarks: @Sendable () -> Void = {
    let rate = 48000.0
    let block = SpeechLikeSignal.blockFrames(rate: rate)
    let blocks = Int(600 * rate) / block

    Benchmark(
        "loudness-at-the-end-of-10-minutes",
        configuration: .init(metrics: [.wallClock, .cpuTotal], timeUnits: .microseconds, warmupIterations: 1, maxIterations: 20)
    ) { (benchmark: Benchmark, measured: AudioMeasurement) in
        benchmark.startMeasurement()
        blackHole(measured.loudness)
        blackHole(measured.measuredLevels)
        benchmark.stopMeasurement()
    } setup: {
        var measurement = AudioMeasurement(channelCount: 1, sampleRate: rate, measuringLoudness: true)
        var signal = SpeechLikeSignal(rate: rate)
        for _ in 0..<blocks { signal.next(block).withUnsafeBufferPointer { measurement.add($0) } }
        return measurement
    }

    Benchmark(
        "loudness-of-10-minutes-as-recorded",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal], timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)
    ) { (benchmark: Benchmark, signal: [[Float]]) in
        var measurement = AudioMeasurement(channelCount: 1, sampleRate: rate, measuringLoudness: true)
        benchmark.startMeasurement()
        for block in signal { block.withUnsafeBufferPointer { measurement.add($0) } }
        blackHole(measurement.loudness)
        benchmark.stopMeasurement()
    } setup: {
        var signal = SpeechLikeSignal(rate: rate)
        return (0..<blocks).map { _ in signal.next(block) }
    }
}

/// Noise whose level rises and falls a few times a second with pauses between, as speech's does: a loudness range
/// and a gate with something to do. Deterministic (a linear congruential generator).
struct SpeechLikeSignal {
    let rate: Double
    private var frame = 0
    private var state: UInt64 = 0x5EED

    init(rate: Double) { self.rate = rate }

    /// What the recording writer takes at a time while the input runs: 0.2 s.
    static func blockFrames(rate: Double) -> Int { Int(rate * 0.2) }

    mutating func next(_ count: Int) -> [Float] {
        (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
            let time = Double(frame) / rate
            frame += 1
            let syllables = max(0, sin(2 * .pi * 3 * time)) * (0.6 + 0.4 * sin(2 * .pi * 0.1 * time))
            return noise * Float(0.3 * syllables)
        }
    }
}
