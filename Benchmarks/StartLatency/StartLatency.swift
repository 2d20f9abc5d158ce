import AudioIO
import Benchmark

/// How long after `play()` a prepared player's first frame reaches ALSA: `prepareToPlay()` outside the measured
/// region, then `play()` and the wait for the first bytes that the `file` PCM passes into a FIFO (see
/// ``FirstFrameProbe``). The goal is under one device period (10 ms). Wall-clock time; the player allocates, so
/// mallocs are not the point here.
let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "play-to-first-frame",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
            maxDuration: .seconds(30), maxIterations: 50)
    ) { benchmark, probe in
        let player: AudioPlayer
        do { player = try AudioPlayer(contentsOf: probe.tone) } catch { return benchmark.error("\(error)") }
        player.currentDevice = probe.device
        guard player.prepareToPlay() else { return benchmark.error("prepareToPlay failed: \(player.status)") }
        probe.arm()
        benchmark.startMeasurement()
        let started = player.play()
        let arrived = probe.waitForFirstBytes()
        benchmark.stopMeasurement()
        player.stop()
        if !started { benchmark.error("play failed: \(player.status)") }
        if !arrived { benchmark.error("no frame reached the device within 2 s of play()") }
    } setup: {
        try FirstFrameProbe()
    }
}
