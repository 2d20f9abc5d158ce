@testable import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// How far an address downloads ahead of its readers, against a local nginx: an asset loaded for its length fetches its
/// header, not the file.
@Suite(.timeLimit(.minutes(1))) struct RemoteFetchAheadTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    @Test func anAssetLoadedForItsLengthFetchesItsHeaderAndLittleMore() async throws {
        // 10 s of stereo 16-bit: 1.92 MB, at 512 KB/s.
        let episode = scratch.file("episode.wav")
        try Sox.synth(to: episode.path, rate: 48000, channels: 2, seconds: 10, "sine 440")
        let server = try HTTPServer(rate: "512k")
        try server.put(episode, as: "episode.wav")
        let asset = AudioAsset(url: server.url("episode.wav"), cache: RemoteCache(directory: scratch.file("cache")))
        let duration = try await asset.load(.duration)
        #expect(abs(duration - 10) < 0.001)
        // Long enough for the whole file to come, were it fetched.
        try await Task.sleep(for: .seconds(2))
        let fetched = asset.bytesDownloaded
        #expect(fetched > 0 && fetched < RemoteAsset.readAheadBytes + 128 * 1024, "\(fetched) of 1.92 MB fetched")
        withExtendedLifetime(asset) {}
    }
}

/// A queue of addresses on a PulseAudio null sink, whose monitor records what is heard, over a link a little faster
/// than the audio: the item playing downloads to its end, the next one's start is fetched once it has, and the items
/// after it fetch their headers only; the items play back to back without a gap.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct RemoteQueueFetchAheadTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    @Test func aQueueFetchesItsNextItemAheadAndPlaysItWithoutAGap() async throws {
        try await PulseAudioServer.own { pulse in
            // Three items of 4 s of stereo 16-bit (768 KB each), at 300 KB/s a connection: 1.6 times the audio's rate.
            let server = try HTTPServer(rate: "300k")
            for number in 1...3 {
                let file = scratch.file("part\(number).wav")
                try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 4, "sine 440")
                try server.put(file, as: "part\(number).wav")
            }
            let cache = RemoteCache(directory: scratch.file("cache"))
            let assets = (1...3).map { AudioAsset(url: server.url("part\($0).wav"), cache: cache) }
            for asset in assets { _ = try await asset.load(.duration) }
            let items = assets.map(PlayerItem.init(asset:))
            let queue = QueuePlayer(items: items)
            queue.currentDevice = pulse.device
            let heard = scratch.path("heard.wav")
            let recorder = try pulse.recordMonitor(to: heard, channels: 1)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))

            let events = queue.events()
            // What was downloaded when the second item began, read as the event happens: this task, on a busy test
            // pool, may see the event late, when the third item's fetch ahead has begun.
            let secondBegan = Mutex<(loaded: [Range<TimeInterval>], thirdFetched: Int64)?>(nil)
            let observation = queue.observe { event in
                guard case .currentItemChanged(let item?) = event, item === items[1] else { return }
                secondBegan.withLock { $0 = $0 ?? (item.loadedTimeRanges, assets[2].bytesDownloaded) }
            }
            defer { withExtendedLifetime(observation) {} }
            #expect(queue.play())
            var stalls = 0
            for await event in events {
                if event == .playbackStalled { stalls += 1 }
                if case .finishedPlaying(let successfully) = event {
                    #expect(successfully)
                    break
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            let second = try #require(secondBegan.withLock { $0 })
            // Fetched ahead while the first played: more than what reading its header left (1.3 s of it).
            #expect((second.loaded.first?.upperBound ?? 0) > 3.5, "the second item's start was here: \(second.loaded)")
            #expect(second.thirdFetched < RemoteAsset.readAheadBytes + 128 * 1024, "the third fetched \(second.thirdFetched) bytes")
            // Back to back: 12 s of the tone, and no gap between its first sound and its last.
            let samples = try Sox.samples(of: heard)
            let first = try #require(samples.firstIndex { $0 != 0 }), last = try #require(samples.lastIndex { $0 != 0 })
            var longestSilence = (frames: 0, at: 0), silence = 0
            for index in first...last {
                silence = samples[index] == 0 ? silence + 1 : 0
                if silence > longestSilence.frames { longestSilence = (silence, index - first) }
            }
            // A download that kept the second item waiting would stall the queue, and be heard as a gap of a tenth of a
            // second or more (a period of silence is a busy machine's underrun, not a wait).
            #expect(stalls == 0)
            #expect(longestSilence.frames < 4800, "a gap of \(longestSilence.frames) frames, \(Double(longestSilence.at) / 48000) s in")
            #expect(abs(Double(last - first) / 48000 - 12) < 0.3, "sounded for \(Double(last - first) / 48000) s")
        }
    }
}
