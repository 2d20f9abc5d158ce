import Foundation
import Glibc
import TestSupport
import Testing

/// `voicememo record` on a PulseAudio sink's monitor, stopped with Ctrl-Z (SIGTSTP) and continued with
/// `fg` (SIGCONT) while a tone plays into the sink: `.clocked`, run after the others.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct InterruptionTests {
    /// The next line `recording` prints that is not a level line (which begin with the elapsed time).
    func notice(_ recording: RunningTool) -> String? {
        while let line = recording.nextLine() {
            if !(line.first?.isNumber ?? false) { return line }
        }
        return nil
    }

    @Test func ctrlZPausesTheRecordingAndFgResumesItWithoutTheStoppedTimeOrABurstAtTheSeam() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let sine = try server.playSine(frequency: 1000)
            defer { sine.stop() }
            try await Task.sleep(for: .milliseconds(500))

            let recording = try cli.start(["record", "--device", "pulse", "--title", "Paused"], with: try server.environment)
            #expect(recording.nextLine()?.hasPrefix("Recording “Paused” as ") == true)
            let started = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(1500))
            let stopping = ContinuousClock.now
            recording.send(SIGTSTP)
            #expect(notice(recording) == "stopped (Ctrl-Z) — recording paused; fg resumes it")
            let deadline = ContinuousClock.now + .seconds(5)
            while DevicesTests.state(of: recording.processIdentifier) != "T", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(DevicesTests.state(of: recording.processIdentifier) == "T")
            try await Task.sleep(for: .milliseconds(2000))
            let continuing = ContinuousClock.now
            recording.send(SIGCONT)
            #expect(notice(recording) == "recording resumed")
            try await Task.sleep(for: .milliseconds(1500))
            recording.send(SIGINT)
            let stopped = ContinuousClock.now
            let result = recording.finish()
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")

            let memos = try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
            let memo = try #require(memos?.first)
            let duration = try #require(memo["duration"] as? Double)
            let wall = (stopped - started) / .seconds(1)
            let paused = (continuing - stopping) / .seconds(1)
            // About the stopped time shorter than the wall time (the start line comes a moment after the
            // first frame, the last frames a moment after SIGINT).
            #expect(abs(duration - (wall - paused)) < 0.5, "\(duration) s recorded of \(wall) s, \(paused) s stopped")

            // The tone throughout, at its level, in every 10 ms: no silence standing in for the stopped
            // time, no stale or foreign samples at the seam.
            let samples = try Sox.samples(of: try #require(memo["file"] as? String))
            let window = 480
            var quietest = 0.0, loudest = -200.0
            for start in stride(from: window * 10, to: samples.count - window * 10, by: window) {
                let slice = samples[start..<(start + window)].map { Double($0) / 2147483648 }
                let rms = 20 * log10(max(1e-9, (slice.map { $0 * $0 }.reduce(0, +) / Double(window)).squareRoot()))
                let peak = 20 * log10(max(1e-9, slice.map(abs).max() ?? 0))
                quietest = min(quietest, rms)
                loudest = max(loudest, peak)
            }
            #expect(quietest > -9.03 - 1, "quietest 10 ms: \(quietest) dBFS")
            #expect(loudest < -6.02 + 0.1, "loudest sample: \(loudest) dBFS")
        }
    }
}
