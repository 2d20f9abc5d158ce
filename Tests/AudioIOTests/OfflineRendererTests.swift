import AudioIO
import Foundation
import TestSupport
import Testing

/// The whole playback pipeline rendered without a device: the samples a device would get, checked frame by frame.
@Suite(.timeLimit(.minutes(1))) struct OfflineRendererTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// A file of sox's white noise, `channels` channels at 48 kHz.
    func noise(_ name: String, seconds: Double, channels: Int = 2) throws -> URL {
        let file = scratch.file(name)
        try Sox.synth(to: file.path, rate: 48000, channels: channels, seconds: seconds, Array(repeating: "whitenoise", count: channels).joined(separator: " "))
        return file
    }

    func samples(of file: URL) throws -> [Float] {
        let audio = try AudioFile(forReading: file)
        return try audio.read(frameCount: Int(audio.frameCount))
    }

    func player(_ file: URL, on renderer: OfflineRenderer) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = renderer.device
        return player
    }

    @Test func aPlayersGainScalesItsSamplesBeforeItsVolumeAndMayRaiseThem() throws {
        let renderer = try OfflineRenderer()
        let file = try noise("noise.wav", seconds: 0.5)
        let expected = try samples(of: file)
        let player = try player(file, on: renderer)
        player.gain = 12
        player.volume = 0.5
        #expect(player.gain == 12)
        #expect(player.play())
        let rendered = renderer.render(frameCount: expected.count / 2)
        let factor = Float(pow(10, 12.0 / 20) * 0.5)
        #expect(zip(rendered, expected).allSatisfy { abs($0 - $1 * factor) <= 1e-5 }, "each sample times 10^(12/20), halved")
        #expect(rendered.map(\.magnitude).max()! > expected.map(\.magnitude).max()!, "louder than the file")
        player.gain = 1000
        #expect(player.gain == 48, "clamped")
    }

    @Test func aPlayerRendersEveryFrameOfItsFileAndThenSilence() throws {
        let renderer = try OfflineRenderer()
        let file = try noise("noise.wav", seconds: 0.5)
        let expected = try samples(of: file)
        let player = try player(file, on: renderer)
        #expect(player.play())
        let rendered = renderer.render(frameCount: 30000)
        #expect(firstDifference(Array(rendered.prefix(expected.count)), expected) == nil)
        #expect(rendered.dropFirst(expected.count).allSatisfy { $0 == 0 })
        #expect(renderer.currentTime == 30000.0 / 48000)
        #expect(!renderer.isPlaying)
    }

    @Test func loopsRenderIntoAFileThatEndsWithTheLastLoop() throws {
        let renderer = try OfflineRenderer()
        let file = try noise("noise.wav", seconds: 0.3)
        let once = try samples(of: file)
        let player = try player(file, on: renderer)
        player.numberOfLoops = 2
        player.play()
        let output = scratch.file("looped.wav")
        let summary = try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 2, bitDepth: .float32))
        #expect(summary.frameCount == 3 * 14400)
        #expect(try FFprobe.audio(of: output.path).frames == 3 * 14400, "ffprobe reads the same length")
        #expect(firstDifference(try samples(of: output), once + once + once) == nil)
    }

    @Test func playersScheduledForOneTimeStartOnThatFrame() throws {
        let renderer = try OfflineRenderer()
        let signal = try noise("signal.wav", seconds: 0.2)
        let inverse = scratch.file("inverse.wav")
        // No dither (-D), so that the inverse is exact.
        try Tool.output("sox", ["-D", signal.path, inverse.path, "vol", "-1"])
        let expected = try samples(of: signal)
        let first = try player(signal, on: renderer)
        let second = try player(inverse, on: renderer)
        let third = try player(signal, on: renderer)
        #expect(first.play(atTime: 0.25) && second.play(atTime: 0.25) && third.play(atTime: 0.5))
        let rendered = renderer.render(frameCount: 48000)
        // The first two cancel sample for sample; the third starts at frame 24000 exactly.
        #expect(rendered.prefix(2 * 24000).allSatisfy { $0 == 0 })
        #expect(firstDifference(Array(rendered[(2 * 24000)..<(2 * 24000 + expected.count)]), expected) == nil)
    }

    @Test func aScheduledStartLaterInTheRenderIsWrittenWithTheSilenceBeforeIt() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let file = try noise("mono.wav", seconds: 0.1, channels: 1)
        let player = try player(file, on: renderer)
        player.play(atTime: 1)
        let summary = try renderer.render(to: scratch.file("late.wav"), settings: AudioSettings(format: .wav, channelCount: 1, bitDepth: .float32))
        #expect(summary.frameCount == 48000 + 4800)
        let written = try samples(of: scratch.file("late.wav"))
        #expect(written.prefix(48000).allSatisfy { $0 == 0 })
        #expect(firstDifference(Array(written.dropFirst(48000)), try samples(of: file)) == nil)
    }

    @Test func panAndVolumeScaleEachChannel() throws {
        let renderer = try OfflineRenderer()
        let file = try noise("noise.wav", seconds: 0.2)
        let expected = try samples(of: file)
        let player = try player(file, on: renderer)
        player.pan = 0.5
        player.volume = 0.5
        player.play()
        let rendered = renderer.render(frameCount: 9600)
        let left = stride(from: 0, to: expected.count, by: 2).map { expected[$0] * 0.5 * 0.5 }
        let right = stride(from: 1, to: expected.count, by: 2).map { expected[$0] * 0.5 }
        #expect(firstDifference(stride(from: 0, to: rendered.count, by: 2).map { rendered[$0] }, left) == nil)
        #expect(firstDifference(stride(from: 1, to: rendered.count, by: 2).map { rendered[$0] }, right) == nil)
    }

    @Test func aFadeFallsLinearlyOverItsDuration() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let file = scratch.file("level.wav")
        let writer = try AudioFileWriter(url: file, settings: AudioSettings(bitDepth: .float32))
        try [Float](repeating: 0.5, count: 48000).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let player = try player(file, on: renderer)
        player.play()
        _ = renderer.render(frameCount: 4800)
        player.setVolume(0, fadeDuration: 0.25)
        let fade = renderer.render(frameCount: 24000)
        #expect(abs(fade[0] - 0.5) < 0.001, "the fade starts where the render stood: \(fade[0])")
        #expect(abs(fade[6000] - 0.25) < 0.001, "half-way down at half the fade: \(fade[6000])")
        #expect(fade[11999] == 0 && fade[12000...].allSatisfy { $0 == 0 })
    }

    @Test func aRateOf1Point5ShortensTheMemoAndKeepsItsPitch() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let file = scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 3, "sine 440")
        let player = try player(file, on: renderer)
        player.enableRate = true
        player.rate = 1.5
        player.play()
        let output = scratch.file("fast.opus")
        let summary = try renderer.render(to: output, settings: AudioSettings(format: .opus, channelCount: 1))
        #expect(abs(summary.duration - 2) < 0.05, "\(summary.duration) s")
        let decoded = scratch.file("fast.wav")
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", output.path, decoded.path])
        let tone = try samples(of: decoded)
        let sound = tone.dropFirst(4800).dropLast(4800)
        let crossings = zip(sound, sound.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        let frequency = Double(crossings) / 2 / (Double(sound.count) / 48000)
        #expect(abs(frequency - 440) < 440 * 0.02, "opusdec hears \(frequency) Hz")
    }

    @Test func aQueueRendersItsItemsBackToBack() async throws {
        let renderer = try OfflineRenderer()
        let first = try noise("first.wav", seconds: 0.2)
        let second = try noise("second.wav", seconds: 0.3)
        let queue = QueuePlayer(items: try await readyItems([first, second]))
        queue.currentDevice = renderer.device
        queue.play()
        let output = scratch.file("queue.wav")
        try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 2, bitDepth: .float32))
        #expect(firstDifference(try samples(of: output), try samples(of: first) + samples(of: second)) == nil)
    }

    /// Each item at its own gain (a normalization's), before the queue's volume: the gain changes on the first frame of the
    /// next item, not a frame sooner or later, and an item queued twice plays at its gain both times.
    @Test func aQueuesItemsPlayEachAtItsOwnGainChangingOnTheFrameWhereTheNextBegins() async throws {
        let renderer = try OfflineRenderer()
        // 9600 and 14400 frames: neither a whole number of the decoder's steps, so a seam falls inside one.
        let first = try noise("first.wav", seconds: 0.2)
        let second = try noise("second.wav", seconds: 0.3)
        let items = try await readyItems([first, second, first])
        let queue = QueuePlayer(items: items)
        queue.currentDevice = renderer.device
        items[0].gain = -9
        items[1].gain = 6
        items[2].gain = -9
        queue.volume = 0.5
        queue.play()
        let output = scratch.file("queue.wav")
        try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 2, bitDepth: .float32))
        let rendered = try samples(of: output)
        let (quiet, loud) = (Float(pow(10, -9.0 / 20) * 0.5), Float(pow(10, 6.0 / 20) * 0.5))
        let expected = try samples(of: first).map { $0 * quiet } + samples(of: second).map { $0 * loud } + samples(of: first).map { $0 * quiet }
        #expect(rendered.count == expected.count)
        let wrong = zip(rendered, expected).enumerated().first { abs($1.0 - $1.1) > 1e-6 }
        #expect(wrong == nil, "first wrong frame: \(wrong.map { $0.offset / 2 } ?? -1) (the seams are at 9600 and 24000)")
        // The seams themselves, frame by frame, either side.
        #expect(rendered[2 * 9599] == expected[2 * 9599] && rendered[2 * 9600] == expected[2 * 9600])
        #expect(rendered[2 * 23999] == expected[2 * 23999] && rendered[2 * 24000] == expected[2 * 24000])
    }

    /// A gain set while the item plays is heard from the decoder's next step: what was decoded before keeps the old one.
    @Test func aGainSetWhileTheItemPlaysChangesFromTheNextDecodedStep() async throws {
        let renderer = try OfflineRenderer()
        let file = try noise("long.wav", seconds: 1)
        let item = try await readyItems([file])[0]
        let queue = QueuePlayer(items: [item])
        queue.currentDevice = renderer.device
        queue.play()
        let before = renderer.render(frameCount: 4800)
        item.gain = -12
        PlayerItem(url: file).gain = -12
        let rendered = before + renderer.render(frameCount: 43200)
        let original = try samples(of: file)
        let amplitude = Float(pow(10, -12.0 / 20))
        let firstChanged: Int = try #require(rendered.indices.first { index in rendered[index] != original[index] })
        let change = firstChanged / 2
        #expect(change >= 4800 && change % 1024 == 0 && change <= 4800 + 4 * 4096 + 1024,
                "changes at frame \(change): a step's start, after what the ring (four periods) and the step under way held")
        #expect(firstDifference(Array(rendered.prefix(2 * change)), Array(original.prefix(2 * change))) == nil)
        #expect(zip(rendered, original).dropFirst(2 * change).allSatisfy { abs($0 - $1 * amplitude) <= 1e-6 })
    }

    @Test func nothingPlayingWritesNoFileAndAnExistingOneIsKept() throws {
        let renderer = try OfflineRenderer()
        let output = scratch.file("nothing.wav")
        #expect(throws: AudioFileError.self) { try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 2)) }
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty, "no hidden file left")

        let kept = try noise("kept.wav", seconds: 0.1)
        let before = try Data(contentsOf: kept)
        try player(kept, on: renderer).play()
        #expect(throws: AudioFileError.self) {
            try renderer.render(to: kept, settings: AudioSettings(format: .wav, channelCount: 2), replacingExisting: false)
        }
        #expect(try Data(contentsOf: kept) == before)
    }

    @Test func aLoopForeverStopsAtTheMaximumDuration() throws {
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try player(try noise("noise.wav", seconds: 0.1, channels: 1), on: renderer)
        player.numberOfLoops = -1
        player.play()
        let summary = try renderer.render(to: scratch.file("ten.wav"), settings: AudioSettings(format: .wav, sampleRate: 16000, channelCount: 1), maximumDuration: 10)
        #expect(summary.frameCount == 160_000)
        #expect(try Sox.info(scratch.path("ten.wav")).frames == 160_000)
    }

    /// A listener cancelled while the player hands out an event: the stream's end (under the runtime's lock on the
    /// cancelled task) once took the player's lock, which the handing out holds while it resumes that task.
    @Test func listenersCancelledWhileEventsComeNeverDeadlockThePlayer() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(try noise("short.wav", seconds: 0.01, channels: 1), on: renderer)
        // On a thread of its own, not one of the test pool's few, which it would hold for the whole loop.
        let done = await withCheckedContinuation { (finished: CheckedContinuation<Bool, Never>) in
            Thread {
                for _ in 0..<100 {
                    let listeners = (0..<4).map { _ in
                        let events = player.events()
                        return Task { for await _ in events {} }
                    }
                    player.play()
                    // The engine's event thread hands out started and finished while the listeners are cancelled here.
                    _ = renderer.render(frameCount: 1024)
                    listeners.forEach { $0.cancel() }
                    player.stop()
                }
                finished.resume(returning: true)
            }.start()
        }
        #expect(done && player.status == .readyToPlay)
    }

    @Test func settingsThatAreNotTheRenderersAreRefusedInOneLine() throws {
        let renderer = try OfflineRenderer()
        #expect(throws: AudioSettingsError.channelCount(3, allowed: 1...2, format: .wav)) { try OfflineRenderer(channelCount: 3) }
        let error = #expect(throws: AudioFileError.self) {
            try renderer.render(to: scratch.file("mono.wav"), settings: AudioSettings(format: .wav, channelCount: 1))
        }
        #expect(error?.description.contains("48000 Hz in 2 channels") == true)
    }
}
