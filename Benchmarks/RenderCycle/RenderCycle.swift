import AudioIO
import Benchmark

/// The playback engine's render cycle: `Mixer.render(into:frames:firstFrame:)` over every voice, then
/// `SampleConversion.encode(_:as:into:)` to int32, as `StreamEngine.renderPeriod` runs it once per period.
///
/// - `cycle-1-voice`, `cycle-8-voices`: one sample is one cycle (480 frames), with the player's ring size;
///   the rings are topped up between samples, outside the measured region. Time and mallocs per cycle.
/// - `cycle-1-voice-tapped`: `cycle-1-voice` with a player's tap (`renderedAudio()`) on the voice: the render thread
///   also writes what it mixed into the tap's lock-free ring, which is emptied between samples.
/// - `stream-8-voices`: one sample is 1000 cycles in a row (10 s of audio) from rings filled beforehand, so
///   that a malloc in any cycle shows; 5 samples, which makes their p90 their maximum.
///
/// Benchmarks/Thresholds holds mallocs at 0 (p90, the percentile that `benchmark thresholds check` checks).
let benchmarks: @Sendable () -> Void = {
    let mallocsNone: [BenchmarkMetric: BenchmarkThresholds] = [.mallocCountTotal: .init(absolute: [.p90: 0])]

    for (voiceCount, tapped) in [(1, false), (8, false), (1, true)] {
        Benchmark(
            (voiceCount == 1 ? "cycle-1-voice" : "cycle-\(voiceCount)-voices") + (tapped ? "-tapped" : ""),
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, warmupIterations: 100,
                maxDuration: .seconds(5), maxIterations: 10_000, thresholds: mallocsNone)
        ) { benchmark, rig in
            rig.refill()
            benchmark.startMeasurement()
            rig.renderCycle()
            benchmark.stopMeasurement()
            if rig.starvedPeriods > 0 { benchmark.error("a voice's ring ran dry: the cycle mixed less than it should") }
            if rig.droppedTapFrames > 0 { benchmark.error("a tap's ring was full: the cycle handed over less than it should") }
        } setup: {
            RenderRig(voiceCount: voiceCount, ringSeconds: PlaybackPipeline.ringSeconds, tapped: tapped)
        }
    }

    let streamCycles = 1000
    Benchmark(
        "stream-8-voices",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1,
            maxDuration: .seconds(60), maxIterations: 5, thresholds: mallocsNone)
    ) { benchmark, rig in
        rig.refill()
        benchmark.startMeasurement()
        for _ in 0..<streamCycles { rig.renderCycle() }
        benchmark.stopMeasurement()
        if rig.starvedPeriods > 0 { benchmark.error("a voice's ring ran dry: the stream mixed less than it should") }
    } setup: {
        RenderRig(voiceCount: 8, ringSeconds: Double(streamCycles * RenderRig.periodFrames) / Double(RenderRig.sampleRate))
    }
}
