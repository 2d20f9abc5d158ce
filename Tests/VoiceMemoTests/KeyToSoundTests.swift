import Foundation
import TestSupport
import Testing

/// `voicememo play` on a sound server, which it plays with long buffers (four periods of 125 ms queued): a pause and a
/// resume, and a new speed, are heard at once, and playback goes on from where the listener was, not from where the
/// mix had got to or from what the device had queued a period before. Heard on the sink's monitor, recorded by
/// `parec`, from a memo whose level tells where in it the listener is: a 440 Hz tone whose amplitude steps up every
/// 10 ms through 128 steps, over and over.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.player)) struct KeyToSoundTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    /// Milliseconds per step of the memo's staircase.
    static let step = 10
    static let steps = 128

    /// The staircase, 20 s of it, as a memo of each title.
    private func importStaircase(as titles: [String]) throws {
        let wav = cli.scratch.path("staircase.wav")
        try Self.writeStaircase(seconds: 20, channels: 2, to: wav, scratch: cli.scratch)
        for title in titles { #expect(try cli.run("import", wav, "--title", title).status == 0) }
    }

    /// Writes `seconds` of the staircase at 48 kHz, 16-bit, in `channels` channels alike, as a WAV file at `path`.
    static func writeStaircase(seconds: Int, channels: Int, to path: String, scratch: ScratchDirectory) throws {
        let raw = scratch.file("staircase-\(seconds)-\(channels).raw")
        var samples: [Int16] = []
        let frames = 48000 * seconds
        samples.reserveCapacity(channels * frames)
        for frame in 0..<frames {
            let amplitude = amplitude(ofStep: frame / (48 * step) % steps)
            let value = Int16((amplitude * sin(2 * Double.pi * 440 * Double(frame) / 48000)).rounded())
            samples.append(contentsOf: repeatElement(value, count: channels))
        }
        try samples.withUnsafeBytes { try Data($0).write(to: raw) }
        try Tool.output("sox", ["-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "\(channels)", raw.path, path])
    }

    private static func amplitude(ofStep step: Int) -> Double { Double(2000 + 100 * step) }

    /// The staircase's step heard in each 2.5 ms of `samples` (16-bit ones, as ``Sox/samples(of:)`` reads them: a 440 Hz
    /// period fits in 2.5 ms, so its peak is the step's amplitude), or nil where it is silent.
    static func steps(in samples: [Int32]) -> [Double?] {
        stride(from: 0, to: samples.count - 120, by: 120).map { start in
            let peak = samples[start..<(start + 120)].map { abs(Int($0 >> 16)) }.max() ?? 0
            return peak < 1000 ? nil : (Double(peak) - 2000) / 100
        }
    }

    /// `to` less `from` in steps, the shorter way round the staircase's 128.
    static func distance(from: Double, to: Double) -> Double {
        var difference = (to - from).truncatingRemainder(dividingBy: Double(steps))
        if difference > Double(steps / 2) { difference -= Double(steps) }
        if difference < -Double(steps / 2) { difference += Double(steps) }
        return difference
    }

    /// Of one memo (a player), and of the first of memos played in turn (a queue).
    @Test(arguments: [["Staircase"], ["Staircase", "Staircase again"]])
    func pauseResumeAndANewSpeedGoOnFromWhereTheListenerWas(memos: [String]) async throws {
        try await PulseAudioServer.own { server in
            try importStaircase(as: memos)
            let heard = cli.scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 1)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))
            let play = try PseudoTerminal(
                CLI.binary, ["play"] + memos + ["--device", "pulse", "--no-meter"],
                environment: cli.environment.merging(try server.environment) { $1 })
            // It asks the server for long buffers: what `pactl` calls the stream's buffer latency, what it holds queued,
            // reaches hundreds of milliseconds within a second (four 10 ms periods would keep it at 40 ms or less).
            var bufferLatencies: [Double] = []
            for _ in 0..<6 {
                play.read(until: { _ in false }, timeout: 0.25)
                let streams = try Tool.run("pactl", ["--server=unix:\(server.socket)", "list", "sink-inputs"]).standardOutput
                bufferLatencies += streams.split(separator: "\n").filter { $0.contains("Buffer Latency:") }
                    .compactMap { $0.split(separator: " ").dropFirst(2).first.flatMap { Double($0) } }
            }
            #expect((bufferLatencies.max() ?? 0) >= 200_000, "\(bufferLatencies) µs")
            // Keys a second or so apart, each away from a period's edge as it comes: what a listener does.
            for key in [" ", " ", "+", "q"] {
                play.read(until: { _ in false }, timeout: 1.3)
                #expect(play.waitForExit(timeout: 0) == nil, "play ended before \(key.debugDescription)")
                play.type(key)
            }
            #expect(play.waitForExit(timeout: 10) == 0)
            try await Task.sleep(for: .milliseconds(300))
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            let heardSteps = Self.steps(in: try Sox.samples(of: heard))
            // Where it sounds: runs of steps, parted by the pause, the one silence of half a second or more. (A moment
            // of silence within a run, such as a new voice may take to reach the sink, or a machine busy with a debug
            // build may cause, delays the staircase without moving it.)
            var runs: [[Double]] = []
            var silent = 0
            for step in heardSteps {
                guard let step else {
                    silent += 1
                    continue
                }
                if runs.isEmpty || silent >= 200 { runs.append([]) }
                silent = 0
                runs[runs.count - 1].append(step)
            }
            try #require(runs.count == 2, "one pause: \(runs.map(\.count)) windows of sound")
            let (beforePause, afterPause) = (runs[0], runs[1])
            try #require(beforePause.count > 400 && afterPause.count > 800, "\(runs.map(\.count)) windows of sound")
            // The resume goes on where the pause stopped, within a period either way: it repeats what was heard between
            // the key and the pause taking effect, and skips what a sound server on a busy machine reports it still holds
            // when it no longer does (on a quiet one, a step or two either way). The two windows at each edge are left
            // out: one the pause cuts short, or the resume starts late in, peaks low.
            let paused = beforePause[beforePause.count - 3], resumed = afterPause[2]
            #expect((-12...12).contains(Self.distance(from: paused, to: resumed)), "paused at step \(paused), resumed at \(resumed)")
            // Step by step the staircase goes on. The change of speed, which starts a new voice from the position heard,
            // goes back no more than 5 steps (reckoning what is queued at the new speed went back 12 to 16), and
            // skips no more than a period. (Each window is read as the median of five around it: one that the new
            // voice's start cuts short reads low, and is no jump.)
            for run in runs {
                let smoothed = run.indices.map { index in
                    run[max(0, index - 2)...min(run.count - 1, index + 2)].sorted { Self.distance(from: $0, to: $1) > 0 }[
                        min(2, (min(run.count - 1, index + 2) - max(0, index - 2)) / 2)]
                }
                let jumps = zip(smoothed, smoothed.dropFirst()).map { Self.distance(from: $0, to: $1) }.filter { !(-5...12).contains($0) }
                #expect(jumps.isEmpty, "jumps of \(jumps) steps")
            }
            // At first 10 steps go by in 100 ms (40 windows); at the end, ×1.25, 12.5. Measured over 400 ms: 40 and 50
            // steps, less than half the staircase.
            let atFirst = Self.distance(from: beforePause[40], to: beforePause[200]) / 4
            let atLast = Self.distance(from: afterPause[afterPause.count - 200], to: afterPause[afterPause.count - 40]) / 4
            #expect(abs(atFirst - 10) < 1 && abs(atLast - 12.5) < 1, "\(atFirst) and \(atLast) steps per 100 ms")
        }
    }
}

/// `play`'s volume keys, mpv's: 9 turns it down and 0 up by a tenth of full, heard at once and shown on the status line.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.player)) struct VolumeKeyTests {
    @Test func nineAndZeroTurnTheVolumeDownAndUpByATenthAsHeard() async throws {
        try await PulseAudioServer.own { server in
            let cli = try CLI()
            let tone = cli.scratch.path("tone.wav")
            try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 20, "sine 1000", volume: 0.5)
            #expect(try cli.run("import", tone, "--title", "Tone", "--format", "wav").status == 0)
            let heard = cli.scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 1)
            defer { if recorder.isRunning { recorder.kill() } }
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Tone", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            #expect(play.read(until: { $0.contains("▶ Tone") }, timeout: 10), "\(play.screen.suffix(300))")
            play.read(until: { _ in false }, timeout: 1.5)
            play.type("999")
            #expect(play.read(until: { $0.contains("vol 70%") }, timeout: 5), "\(play.screen.suffix(300))")
            play.read(until: { _ in false }, timeout: 1.5)
            play.type("0")
            #expect(play.read(until: { $0.contains("vol 80%") }, timeout: 5), "\(play.screen.suffix(300))")
            play.read(until: { _ in false }, timeout: 1.5)
            #expect(play.waitForExit(timeout: 0) == nil, "play ended before q")
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            // The tone's peak in each 50 ms heard: at full volume, then at 70% and 80% of it, each for a second or more, in
            // that order (a window across a change reads between).
            let samples = try Sox.samples(of: heard)
            let peaks = stride(from: 0, to: samples.count - 2400, by: 2400).map { start in
                Double(samples[start..<(start + 2400)].map { Int64($0).magnitude }.max() ?? 0) / Double(Int32.max)
            }
            var held: [(level: Double, windows: Int)] = []
            for peak in peaks where peak > 0.05 {
                let level = (peak * 100).rounded() / 100
                if let last = held.last, abs(last.level - level) < 0.006 { held[held.count - 1].windows += 1 } else { held.append((level, 1)) }
            }
            let steady = held.filter { $0.windows >= 16 }.map(\.level)
            let described = held.map { "\($0.level)×\($0.windows)" }
            try #require(steady.count == 3, "levels held for 0.8 s or more: \(described)")
            #expect(abs(steady[1] / steady[0] - 0.7) < 0.02 && abs(steady[2] / steady[0] - 0.8) < 0.02, "\(described)")
        }
    }
}
