import Foundation
import TestSupport
import Testing

/// `play --sleep` on a device with a real clock, the null sink of a PulseAudio server of its own (it plays for 12 s),
/// whose monitor `parec` records: what a listener falling asleep would hear.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.player)) struct SleepTimerTests {
    @Test func playFadesOutOverTheTimersLast10SecondsThenEndsWithoutHarmToTheMemo() async throws {
        try await PulseAudioServer.own { server in
            let cli = try CLI()
            let id = try cli.importTone(title: "Lecture", seconds: 60)
            let file = try #require(try cli.json(try cli.run("info", id, "--json"))["file"] as? String)
            let original = try Data(contentsOf: URL(fileURLWithPath: file))

            let heard = cli.scratch.path("heard.wav")
            let recorder = try Tool.start("parec", [
                "--server=unix:\(server.socket)", "--device=\(PulseAudioServer.sinkName).monitor", "--file-format=wav",
                "--format=s16le", "--rate=48000", "--channels=1", heard,
            ], environment: try server.environment)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            let result = try cli.run(["play", id, "--sleep", "12s", "--device", "pulse", "--no-meter"], with: try server.environment)
            let took = (ContinuousClock.now - started) / .seconds(1)
            #expect(recorder.isRunning)
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            #expect(result.standardOutput.hasSuffix("Stopped by the sleep timer.\n"), "\(result.standardOutput)")
            #expect((11.9...14).contains(took), "played for \(took) s")

            // Counted back from the end of the sound: full level, then every second of the last 10 quieter than the
            // one before, down to silence. (Counted from the start of the sound, the fade comes later than 2 s: a
            // sound server plays a new stream's first frames at once, and later ones after its queue.)
            let samples = try Sox.samples(of: heard)
            let threshold = Int32(2_147_483_648 * 0.001)
            let first = try #require(samples.firstIndex { abs($0) > threshold })
            let last = try #require(samples.lastIndex { abs($0) > threshold })
            let seconds = (0..<11).reversed().map { Sox.level(of: samples[max(last - ($0 + 1) * 48000, 0)..<(last - $0 * 48000)]) }
            #expect(abs(seconds[0] - -9.03) < 0.3, "a sine at half scale before the fade: \(seconds)")
            #expect(zip(seconds.dropFirst(), seconds.dropFirst(2)).allSatisfy { $1 < $0 - 0.3 }, "falling over the last 10 s: \(seconds)")
            #expect(seconds[10] < seconds[0] - 20, "\(seconds)")
            let sounded = Double(last - first) / 48000
            #expect((11.5...13).contains(sounded), "sounded for \(sounded) s")
            print("play --sleep 12s: ended after \(took) s, sounded for \(sounded) s; the last 11 s in dBFS: \(seconds)")

            let memo = try cli.json(try cli.run("info", id, "--json"))
            #expect(memo["state"] as? String == "complete")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "the memo's file is as it was")
        }
    }
}
