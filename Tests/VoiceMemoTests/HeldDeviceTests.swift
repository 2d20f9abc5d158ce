import Foundation
import Glibc
import TestSupport
import Testing

/// `voicememo record` on a device another program holds (a `testbusy` PCM, locked by this process): it says it waits,
/// records once the device is free, and the memo holds what was recorded after.
@Suite(.timeLimit(.minutes(1))) struct HeldDeviceTests {
    @Test func recordWaitsForADeviceAnotherProgramHoldsThenRecordsWhenItIsFree() async throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch)
        let recording = try cli.start(["record", "--device", device.name, "--title", "Held", "--no-meter", "--duration", "1"],
                                      with: try ALSATestDevices.environment())
        #expect(recording.nextLine(timeout: 10) == "another program holds the device — recording waits for it")
        try await Task.sleep(for: .milliseconds(500))
        #expect(recording.isRunning, "it waits")
        device.isHeld = false
        #expect(recording.nextLine(timeout: 10) == "recording resumed")
        // The second asked for, from when the device was free: it ends by itself.
        let result = recording.finish()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Recorded “Held” as "), "\(result.standardOutput)")
        let memos = try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
        let duration = try #require(memos?.first?["duration"] as? Double)
        #expect(duration == 1, "\(duration) s")
        // Taken again, by this process, only once the recording let it go.
        device.isHeld = true
        #expect(device.isHeld)
    }
}

extension HeldDeviceTests {
    @Test func aRecordingTakenAwayMidwayWaitsAndGoesOnAndInfoListsTheGap() async throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch, held: false)
        let recording = try cli.start(["record", "--device", device.name, "--title", "Taken", "--no-meter"], with: try ALSATestDevices.environment())
        try await Task.sleep(for: .milliseconds(800))
        #expect(recording.isRunning)
        device.isTakenAway = true
        #expect(recording.nextLine(timeout: 10) == "another program holds the device — recording waits for it")
        try await Task.sleep(for: .milliseconds(700))
        device.isTakenAway = false
        #expect(recording.nextLine(timeout: 10) == "recording resumed")
        try await Task.sleep(for: .milliseconds(500))
        #expect(recording.isRunning)
        recording.send(SIGINT)
        let result = recording.finish()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(", 1 marker (a gap where another program held the device)"), "\(result.standardOutput)")

        let memos = try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
        let id = try #require(memos?.first?["id"] as? String)
        let info = try cli.run("info", id).standardOutput
        let gap = try #require(info.split(separator: "\n").first { $0.contains("interrupted ") }, "\(info)")
        let seconds = try #require(Double(gap.split(separator: " ").dropLast().last ?? ""), "\(gap)")
        #expect(seconds >= 0.7, "at least the time the device was taken: \(gap)")
    }
}

extension HeldDeviceTests {
    @Test func playWaitsForADeviceAnotherProgramHoldsThenPlaysToTheEnd() async throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch)
        let tone = cli.scratch.path("tone.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let playing = try cli.start(["play", tone, "--device", device.name], with: try ALSATestDevices.environment())
        var lines: [String] = []
        while let line = playing.nextLine(timeout: 10) {
            lines.append(line)
            if line.hasPrefix("another program") { break }
        }
        #expect(lines.last == "another program holds the device — playback waits for it", "\(lines)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(playing.isRunning, "it waits")
        device.isHeld = false
        #expect(playing.nextLine(timeout: 10) == "playback resumed")
        let result = playing.finish()
        #expect(result.status == 0, "\(result.standardError)")
    }
}
