import AudioIO
import Benchmark

/// The input engine's capture cycle: `CaptureCycle.process(_:frames:firstFrame:)` over every tap (decode the
/// device's int32, map channels, meter, push into the ring), as `StreamEngine.capturePeriod` runs it once per
/// period after the device read.
///
/// - `cycle-recording`, `cycle-recording-and-meter`: one sample is one cycle (480 frames); the rings are
///   drained between samples, outside the measured region. Time and mallocs per cycle.
/// - `stream-recording-and-meter`: one sample is 1000 cycles in a row (10 s of audio) into rings drained
///   beforehand, so that a malloc in any cycle shows; 5 samples, which makes their p90 their maximum.
///
/// Benchmarks/Thresholds holds mallocs at 0 (p90, the percentile that `benchmark thresholds check` checks).
let benchmarks: @Sendable () -> Void = {
    let mallocsNone: [BenchmarkMetric: BenchmarkThresholds] = [.mallocCountTotal: .init(absolute: [.p90: 0])]

    for withMeter in [false, true] {
        Benchmark(
            withMeter ? "cycle-recording-and-meter" : "cycle-recording",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, warmupIterations: 100,
                maxDuration: .seconds(5), maxIterations: 10_000, thresholds: mallocsNone)
        ) { benchmark, rig in
            rig.drain()
            benchmark.startMeasurement()
            rig.captureCycle()
            benchmark.stopMeasurement()
            if rig.overruns > 0 { benchmark.error("a tap's ring was full: the cycle delivered less than it should") }
        } setup: {
            CaptureRig(withMeter: withMeter)
        }
    }

    let streamCycles = 1000
    Benchmark(
        "stream-recording-and-meter",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1,
            maxDuration: .seconds(60), maxIterations: 5, thresholds: mallocsNone)
    ) { benchmark, rig in
        rig.drain()
        benchmark.startMeasurement()
        for _ in 0..<streamCycles { rig.captureCycle() }
        benchmark.stopMeasurement()
        if rig.overruns > 0 { benchmark.error("a tap's ring was full: the stream delivered less than it should") }
    } setup: {
        CaptureRig(withMeter: true, ringSeconds: Double(streamCycles * CaptureRig.periodFrames) / Double(CaptureRig.sampleRate))
    }
}
