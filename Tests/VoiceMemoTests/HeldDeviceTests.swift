import Foundation
import Glibc
import TestSupport
import Testing

/// `voicememo record` and `play` on a device another program holds (a `testbusy` PCM, locked by this process): they say
/// they wait, on a line of their own and on the status line, record or play once the device is free, and the memo holds
/// what was recorded after; what is played (the device appends it to a file) is every memo to its end.
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct HeldDeviceTests {
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
    /// What the device was given (32-bit floats: what `play` opens it with) from the first sound on, as the 32-bit
    /// integers sox reads a 16-bit file as; nothing while it has not been opened.
    static func played(_ path: String) -> ArraySlice<Int32> {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        // A 16-bit sample s played as the float s / 32768 is s << 16 again, exactly.
        let samples = data.withUnsafeBytes { $0.bindMemory(to: Float.self).map { Int32($0 * 2_147_483_648) } }
        // From the first frame with sound: the device may get silence before the memo's first sample is mixed.
        let first = (samples.firstIndex { $0 != 0 } ?? samples.count) / 2 * 2
        return samples[first...]
    }

    /// Imports half a second of stereo noise, "Noise", and of a stereo tone, "Tone"; returns their samples, one after
    /// the other, as sox reads them (32-bit).
    static func importNoiseAndTone(_ cli: CLI) throws -> [Int32] {
        var reference: [Int32] = []
        for (title, effect) in [("Noise", "whitenoise whitenoise"), ("Tone", "sine 440 sine 660")] {
            let source = cli.scratch.path("\(title).wav")
            try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 0.5, effect)
            #expect(try cli.run("import", source, "--title", title).status == 0)
            reference += try Sox.samples(of: source)
        }
        return reference
    }

    /// Whether `played` begins with `reference`, sample for sample; else says where they part.
    static func expect(_ played: ArraySlice<Int32>, toBegin reference: [Int32], sourceLocation: SourceLocation = #_sourceLocation) {
        let heard = Array(played.prefix(reference.count))
        let parting = reference.indices.first { $0 >= heard.count || heard[$0] != reference[$0] }
        #expect(parting == nil, "\(heard.count) of \(reference.count) samples, the first different at \(parting ?? -1)",
                sourceLocation: sourceLocation)
    }

    /// Starts `voicememo play memos` on the held `device`, playing into `output`, and frees the device once it has
    /// waited: the line of the first memo (`first`), the line that it waits, nothing played while it is held, then
    /// playback resumed. Returns it playing on.
    static func play(_ memos: [String], first: String, on device: HeldDevice, into output: String, _ cli: CLI) async throws -> RunningTool {
        let name = device.output(into: output)
        let playing = try cli.start(["play"] + memos + ["--device", name], with: try ALSATestDevices.environment())
        #expect(playing.nextLine(timeout: 10) == "Playing “\(first)” (0:00.5) on \(name)")
        #expect(playing.nextLine(timeout: 10) == "another program holds the device — playback waits for it")
        try await Task.sleep(for: .milliseconds(500))
        #expect(playing.isRunning, "it waits")
        #expect(Self.played(output).isEmpty, "nothing is played while the device is held")
        device.isHeld = false
        #expect(playing.nextLine(timeout: 10) == "playback resumed")
        return playing
    }

    @Test func playWaitsForADeviceAnotherProgramHoldsThenPlaysToTheEnd() async throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch)
        let noise = cli.scratch.path("noise.wav")
        try Sox.synth(to: noise, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        let output = cli.scratch.path("out.raw")
        let result = try await Self.play([noise], first: "noise.wav", on: device, into: output, cli).finish()
        #expect(result.status == 0, "\(result.standardError)")
        // The whole file, sample for sample.
        Self.expect(Self.played(output), toBegin: try Sox.samples(of: noise))
    }

    @Test func memosPlayedInTurnWaitForADeviceAnotherProgramHoldsThenPlayEachToTheEnd() async throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch)
        let reference = try Self.importNoiseAndTone(cli)
        let output = cli.scratch.path("out.raw")
        let playing = try await Self.play(["Noise", "Tone"], first: "Noise", on: device, into: output, cli)
        #expect(playing.nextLine(timeout: 10) == "Playing “Tone” (0:00.5) on \(device.output(into: output))")
        let result = playing.finish()
        #expect(result.status == 0, "\(result.standardError)")
        // Both memos, sample for sample, gapless.
        Self.expect(Self.played(output), toBegin: reference)
    }

    @Test func playsStatusLineSaysItWaitsForTheDeviceThenShowsPlayback() throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch)
        let reference = try Self.importNoiseAndTone(cli)
        let output = cli.scratch.path("out.raw")
        let play = try PseudoTerminal(
            CLI.binary, ["play", "Noise", "Tone", "--device", device.output(into: output), "--no-meter"],
            environment: cli.environment.merging(try ALSATestDevices.environment()) { $1 })
        /// The status lines drawn (under the waveform), in order.
        func statusLines() -> [String] { TerminalDisplayTests.frames(play.screen, height: 2).compactMap(\.last) }
        let waiting = "⏳ WAITING FOR THE DEVICE  Noise  0:00.0 / 0:00.5  1/2"
        #expect(play.read(until: { _ in statusLines().last == waiting }, timeout: 10), "\(play.screen.suffix(1000))")
        #expect(play.screen.contains("another program holds the device — playback waits for it"))
        #expect(play.waitForExit(timeout: 0.5) == nil, "it waits")
        device.isHeld = false
        #expect(play.read(until: { _ in statusLines().last?.hasPrefix("▶ Tone  ") == true }, timeout: 10), "\(play.screen.suffix(1000))")
        #expect(play.waitForExit(timeout: 10) == 0)
        // Once playing, the line is playback's again: waiting is shown no more.
        let lines = statusLines()
        let playing = try #require(lines.firstIndex { $0.hasPrefix("▶ ") })
        #expect(lines[..<playing].contains(waiting) && !lines[playing...].contains { $0.hasPrefix("⏳") }, "\(Set(lines))")
        Self.expect(Self.played(output), toBegin: reference)
    }

    @Test func recordsStatusLineSaysItWaitsForTheDeviceThenShowsTheRecording() throws {
        let cli = try CLI()
        let device = try HeldDevice(in: cli.scratch)
        let record = try PseudoTerminal(
            CLI.binary, ["record", "--device", device.name, "--title", "Held", "--duration", "1"],
            environment: cli.environment.merging(try ALSATestDevices.environment()) { $1 })
        /// The status lines drawn (under the channel's bar), in order.
        func statusLines() -> [String] { TerminalDisplayTests.frames(record.screen, height: 2).compactMap(\.last) }
        #expect(record.read(until: { _ in statusLines().last?.hasPrefix("⏳ WAITING FOR THE DEVICE  Held  0:00.0") == true }, timeout: 10),
                "\(record.screen.suffix(1000))")
        #expect(record.screen.contains("another program holds the device — recording waits for it"))
        #expect(record.waitForExit(timeout: 0.5) == nil, "it waits")
        device.isHeld = false
        #expect(record.waitForExit(timeout: 10) == 0)
        let lines = statusLines()
        let recording = try #require(lines.firstIndex { $0.hasPrefix("● REC  Held  ") }, "\(Set(lines))")
        #expect(!lines[recording...].contains { $0.hasPrefix("⏳") }, "\(Set(lines))")
        #expect(record.screen.contains("Recorded “Held” as "), "\(record.screen.suffix(500))")
        let memo = try cli.json(try cli.run("info", "Held", "--json"))
        #expect(memo["duration"] as? Double == 1, "the second asked for, from when the device was free")
    }
}
