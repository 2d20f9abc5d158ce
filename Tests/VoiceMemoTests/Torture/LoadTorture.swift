import AudioIO
import Foundation
import TestSupport
import Testing

/// Many processes at once, many memos, one very long recording: nothing lost, nothing drifts, memory
/// stays flat.
@Suite(.timeLimit(.minutes(30)), .tags(.torture)) struct LoadTorture {
    @Test func sixteenRecordersAndSixteenPlayersAtOnceLoseNothing() throws {
        let cli = try CLI()
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 2, "sine 440")
        let samples = try Sox.samples(of: source)
        let microphone = try ALSATestDevices.microphone(playing: source)
        let played = try cli.importTone(title: "Played", seconds: 1)
        let count = 16
        let recorders = try (0..<count).map { number in
            try cli.start(["record", "--device", microphone, "--duration", "1", "--title", "Take \(number)", "--json"],
                          with: try ALSATestDevices.environment())
        }
        let players = try (0..<count).map { _ in try cli.start(["play", played, "--device", "null"], with: [:]) }
        for (number, recorder) in recorders.enumerated() {
            let result = recorder.finish()
            #expect(result.status == 0, "recorder \(number): \(result.standardError)")
            let file = try #require(try cli.json(result)["file"] as? String)
            // Each recorder has a microphone of its own (the file PCM opens the infile anew): exact samples.
            #expect(try Sox.samples(of: file) == Array(samples.prefix(48000)), "recorder \(number)")
        }
        for (number, player) in players.enumerated() {
            let result = player.finish()
            #expect(result.status == 0, "player \(number): \(result.standardError)")
        }
        let titles = try cli.lines("list").dropFirst().map { $0 }
        #expect(titles.count == count + 1)
        for number in 0..<count { #expect(titles.contains { $0.contains("Take \(number) ") }, "Take \(number)") }
    }

    @Test func tenThousandMemosAreRebuiltListedAndFound() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Seed", seconds: 0.05)
        let seed = try #require(try cli.json(cli.run("info", id, "--json"))["file"] as? String)
        let count = Torture.scale(quick: 2000, long: 10_000)
        // Files appear behind the store's back (a restore from backup): the index is rebuilt from them.
        for number in 0..<count {
            let copy = String(format: "%012x", 0xA0_0000_0000 + number)
            try FileManager.default.copyItem(atPath: seed, toPath: cli.home.appendingPathComponent("\(copy).wav").path)
        }
        let rebuilt = try cli.run("list", "--json")
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        let memos = try JSONSerialization.jsonObject(with: Data(rebuilt.standardOutput.utf8)) as? [[String: Any]] ?? []
        #expect(memos.count == count + 1)
        let again = try cli.run("list")
        #expect(again.status == 0 && again.standardOutput.split(separator: "\n").count == count + 2)
        #expect(try cli.run("info", String(format: "%012x", 0xA0_0000_0000 + count - 1)).status == 0)
        #expect(try cli.run("delete", String(format: "%012x", 0xA0_0000_0000)).status == 0)
        #expect(try cli.lines("list").count == count + 1)
    }

    @Test func aLongRecordingHasExactlyItsFramesAndFlatMemory() throws {
        let cli = try CLI()
        // The microphone is endless digital silence; the file PCM runs as fast as it is read.
        let hours = Torture.scale(quick: 1.0, long: 8.0)
        let seconds = Int(hours * 3600)
        let recording = try cli.start(["record", "--device", "testmic:'/dev/zero'", "--duration", "\(seconds)",
                                       "--preset", "voice", "--title", "Long", "--json"], with: try ALSATestDevices.environment())
        // Sampled from this thread, not a task that a busy test pool may hold back while it all runs by.
        var samples: [Int] = []
        while recording.isRunning {
            if let rss = residentKilobytes(of: recording.processIdentifier) { samples.append(rss) }
            usleep(10_000)
        }
        let result = recording.finish()
        #expect(result.status == 0, "\(result.standardError)")
        let memo = try cli.json(result)
        #expect(memo["duration"] as? Double == Double(seconds))
        let file = try #require(memo["file"] as? String)
        let opusinfo = try Tool.run("opusinfo", [file])
        #expect(opusinfo.status == 0 && opusinfo.standardOutput.contains("Playback length: \(seconds / 60)m:0"), "\(opusinfo.standardOutput)")
        #expect(try AudioFile(forReading: URL(fileURLWithPath: file)).frameCount == Int64(seconds) * 48000)
        // Memory does not grow: the last quarter of the run no higher than the second quarter (within 1 MB).
        // How much it is, on a release build, is `make bench`'s to measure.
        try #require(samples.count >= 8, "too few RSS samples: \(samples.count)")
        let quarter = samples.count / 4
        #expect(samples[(3 * quarter)...].max()! <= samples[quarter..<(2 * quarter)].max()! + 1024, "\(samples)")
    }

    /// A WAV recording past 4 GiB, where a RIFF header's sizes wrap, becomes RF64: killed there, it is recovered
    /// whole, and info, play and export see its whole length; so does import, in `make torture`. Always full size: 3 h
    /// 10 min of 32-bit stereo from an unclocked microphone of silence, some 70 s of writing here. An import measures
    /// every sample (levels, waveform, loudness), 4 minutes of a debug build for this one: `make test` leaves it to
    /// `make torture`, as the import of a small RF64 file is ForeignFileTests'.
    @Test func aRecordingPastFourGiBIsRecoveredAndReadWholeEverywhere() throws {
        let cli = try CLI()
        let recording = try cli.start(["record", "--device", "testmic:'/dev/zero'", "--channels", "2", "--bit-depth", "32",
                                       "--title", "Long stereo", "--no-meter"], with: try ALSATestDevices.environment())
        defer { if recording.isRunning { recording.kill() } }
        let fourGiB: Int64 = 1 << 32
        var file: String?
        while recording.isRunning, (file.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int64 } ?? 0) < fourGiB + 200_000_000 {
            file = file ?? (try? FileManager.default.contentsOfDirectory(atPath: cli.home.path)).flatMap { $0.first { $0.hasSuffix(".wav") } }
                .map { cli.home.appendingPathComponent($0).path }
            usleep(100_000)
        }
        #expect(recording.isRunning, "the recording ended by itself: \(recording.finish().standardError)")
        recording.kill()
        let recovered = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]).first
        let path = try #require(recovered?["file"] as? String)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64)
        let frames = try FFprobe.audio(of: path).frames
        // Every frame counted but those of the last write (the writer writes up to 32,768 frames at a time: 256 KiB
        // here), which the kill may have cut before its header caught up; the header is a few hundred bytes.
        #expect(recovered?["state"] as? String == "recovered" && size > fourGiB)
        #expect(Int64(frames) * 8 >= size - 262_144 - 4096 && Int64(frames) * 8 <= size, "\(frames) frames in \(size) bytes")
        /// The frames a memo's duration stands for.
        func frameCount(_ memo: [String: Any]?) -> Int? { (memo?["duration"] as? Double).map { Int(($0 * 48000).rounded()) } }
        #expect(frameCount(recovered) == frames)
        let id = try #require(recovered?["id"] as? String)
        #expect(frameCount(try cli.json(cli.run("info", id, "--json"))) == frames)
        let duration = Double(frames) / 48000

        // Played from a second before its end: a second of audio, not a wrapped length.
        let played = cli.scratch.path("played.raw")
        let play = try cli.run(["play", id, "--start", "\(duration - 1)", "--device", "file:'\(played)',raw", "--json"], with: [:])
        #expect(play.status == 0, "\(play.standardError)")
        let playedBytes = try #require(try FileManager.default.attributesOfItem(atPath: played)[.size] as? Int)
        #expect(abs(playedBytes / 8 - 48000) <= 4800, "\(playedBytes) bytes played")

        // Exported and imported again: more passes over 4 GiB in what is already the suite's longest test (395 s of a
        // CI run); the long run (`make torture`) makes them, `make test` stops here.
        guard Torture.isLong else { return }
        let exported = cli.scratch.path("exported.wav")
        #expect(try cli.run("export", id, exported).status == 0)
        #expect(try FFprobe.audio(of: exported).frames == frames)
        defer { try? FileManager.default.removeItem(atPath: exported) }
        let imported = try cli.json(cli.run("import", exported, "--title", "Imported long", "--json"))
        #expect(frameCount(imported) == frames)
        #expect(try FFprobe.audio(of: try #require(imported["file"] as? String)).frames == frames)
    }

    /// VmRSS of `pid` in kilobytes, while it runs.
    func residentKilobytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
}
