import Foundation
import Glibc
import TestSupport
import Testing

/// `play` of a memo that another `voicememo record` is still recording.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct PlayWhileRecordingTests {
    @Test func aMemoStillBeingRecordedIsNotPlayedButSaysWhenItCanBe() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let recording = try cli.start(["record", "--device", "pulse", "--title", "Live"], with: try server.environment)
            let started = try #require(recording.nextLine())
            let id = String(try #require(started.wholeMatch(of: #/Recording “Live” as ([0-9a-f]{12}); Ctrl-C stops\./#)).1)

            for reference in ["Live", id] {
                let play = try cli.run(["play", reference, "--device", "null"], with: try server.environment)
                #expect(recording.isRunning, "still recording while play is asked for it")
                #expect(play.status == 1 && play.standardOutput.isEmpty)
                #expect(play.standardError == "voicememo: “Live” is still being recorded; play it once the recording ends (q or Ctrl-C in the terminal that records it)\n")
            }
            // Nor is it trimmed: its file has no end yet.
            let trim = try cli.run(["trim", id, "--end", "0.1"], with: try server.environment)
            #expect(recording.isRunning, "still recording while trim is asked for it")
            #expect(trim.status == 1 && trim.standardError == "voicememo: “Live” is being recorded right now; stop that recording, then try again\n")

            // Some audio in the file (16-bit mono at 48 kHz: 0.2 s is 19,200 bytes), then the recording ends.
            let file = cli.home.appendingPathComponent("\(id).wav").path
            let deadline = Date().addingTimeInterval(10)
            while ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) < 20_000, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            recording.send(SIGINT)
            #expect(recording.finish().status == 0)
            let play = try cli.run(["play", "Live", "--device", "null"], with: try server.environment)
            #expect(play.status == 0 && play.standardOutput.hasPrefix("Playing “Live” ("), "\(play.status) \(play.standardOutput) \(play.standardError)")
        }
    }
}
