@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// A live HLS playlist's window, on its time line as `AVPlayerItem`'s: 0 is the start of the first window read, playing
/// starts three segments before its end, the window moves on as the playlist is read again, a seek lands in it (before
/// it at its start, past it at the live edge), and a pause longer than the window resumes at its start.
@Suite(.timeLimit(.minutes(1))) struct LiveHLSTests {
    let scratch: ScratchDirectory
    let server: HTTPServer

    init() throws {
        scratch = try ScratchDirectory()
        server = try HTTPServer()
    }

    /// Where segment `number` starts on the time line of a playlist whose first window started at segment 0: the sum
    /// of the `#EXTINF` durations before it.
    func start(ofSegment number: Int, in live: LivePlaylist) -> Double {
        live.segments[..<number].reduce(0) { $0 + Double($1.info.dropFirst("#EXTINF:".count).prefix { $0 != "," })! }
    }

    /// Whether `samples`, read from `frame` of the time line, are ffmpeg's decoding of the segments from `segment` on
    /// at that frame (within a few frames: the time line's segment starts are the playlist's `#EXTINF` sums, rounded
    /// to microseconds).
    func areFFmpegs(_ samples: [Float], at frame: Int64, fromSegment segment: Int, of live: LivePlaylist) throws -> Bool {
        let ffmpegs = try live.ffmpegSamples(from: segment)
        let offset = Int((Double(frame) / 48000 - start(ofSegment: segment, in: live)) * 48000)
        return (-4...4).contains { shift in
            let first = 2 * (offset + shift)
            guard first >= 0, first + samples.count <= ffmpegs.count else { return false }
            return zip(samples, ffmpegs[first...]).allSatisfy { abs($0 - $1) < 1e-5 }
        }
    }

    @Test func aLivePlaylistsWindowMovesOnAndASeekLandsInIt() throws {
        let live = try LivePlaylist(count: 16, seconds: 1, window: 4, server: server, scratch: scratch)
        let mover = live.move()
        defer { mover.cancel() }
        let file = try AudioFile(forReading: live.url, cache: RemoteCache(directory: scratch.file("cache")))
        let first = try #require(file.liveWindow)
        #expect(abs(first.lowerBound) < 1e-6 && abs(first.upperBound - start(ofSegment: 4, in: live)) < 1e-3, "\(first)")
        #expect(abs(Double(file.framePosition) / 48000 - start(ofSegment: 1, in: live)) < 0.01, "from segment 1: \(file.framePosition)")

        // Read on (reads wait for the segments to come) until the window has moved two segments on.
        while try #require(file.liveWindow).lowerBound < start(ofSegment: 2, in: live) - 0.01 {
            #expect(try file.read(frameCount: 4800).count == 9600)
        }
        let moved = try #require(file.liveWindow)
        #expect(abs(moved.upperBound - moved.lowerBound - start(ofSegment: 4, in: live)) < 0.01, "four segments long: \(moved)")

        // Into the window: the frame sought, as ffmpeg decodes its segment.
        let into = Int64((moved.lowerBound + 1.5) * 48000)
        try file.seek(toFrame: into)
        #expect(file.framePosition == into)
        let segment = Int((Double(into) / 48000 / start(ofSegment: 1, in: live)).rounded(.down))
        #expect(try areFFmpegs(try file.read(frameCount: 4800), at: into, fromSegment: segment, of: live), "segment \(segment) at \(into)")

        // Before the window: its start, as read afresh for the seek.
        try file.seek(toFrame: 0)
        let window = try #require(file.liveWindow)
        #expect(abs(Double(file.framePosition) / 48000 - window.lowerBound) < 0.001, "\(file.framePosition) in \(window)")
        let firstListed = Int((window.lowerBound / start(ofSegment: 1, in: live)).rounded())
        #expect(firstListed >= segment - 1, "the window moved on, not back")
        #expect(try areFFmpegs(try file.read(frameCount: 4800), at: file.framePosition - 4800, fromSegment: firstListed, of: live))

        // Past the window's end: the live edge, three segments before the end.
        try file.seek(toFrame: Int64((window.upperBound + 30) * 48000))
        let edge = try #require(file.liveWindow)
        let edgeSegment = Int((edge.upperBound / start(ofSegment: 1, in: live)).rounded()) - 3
        #expect(abs(Double(file.framePosition) / 48000 - start(ofSegment: edgeSegment, in: live)) < 0.001, "\(file.framePosition) in \(edge)")
        let heard = try file.read(frameCount: 9600)
        #expect(abs(toneFrequency(heard[4800...]) - LivePlaylist.frequency(ofSegment: edgeSegment)) < 10, "segment \(edgeSegment)'s tone")
    }

    @Test func aPlayerSeeksIntoItsItemsWindow() async throws {
        let live = try LivePlaylist(count: 30, seconds: 1, window: 6, server: server, scratch: scratch)
        let rig = try PlaybackRig()
        let item = PlayerItem(url: live.url)
        let player = Player(playerItem: item)
        player.currentDevice = rig.device
        let mover = live.move()
        defer { mover.cancel() }
        player.play()
        try await until { player.currentTime > start(ofSegment: 3, in: live) }
        let window = try #require(item.seekableTimeRanges.first)
        // The unclocked device has played what the window held and waits for the next segment: what it writes next
        // is the seek's.
        var heardBefore = -1
        try await until {
            let size = (try? Data(contentsOf: rig.output).count) ?? 0
            defer { heardBefore = size }
            return size == heardBefore
        }
        // Half a second into the window's second segment.
        let target = window.lowerBound + start(ofSegment: 1, in: live) + 0.5
        let segment = Int(target / start(ofSegment: 1, in: live))
        player.seek(to: target)
        try await until { player.currentTime >= target }
        let samples = try await rig.deviceSamples(atLeast: heardBefore / 8 + 48000)
        let heard: [Float] = samples.left[(heardBefore / 8)...].prefix(9600).suffix(4800).flatMap { [Float($0) / 2_147_483_648, 0] }
        #expect(abs(toneFrequency(heard[...]) - LivePlaylist.frequency(ofSegment: segment)) < 10,
                "segment \(segment)'s tone, \(LivePlaylist.frequency(ofSegment: segment)) Hz: \(toneFrequency(heard[...])) Hz")
    }

    @Test(arguments: ["Player", "AudioPlayer"])
    func aPauseLongerThanTheWindowResumesAtItsStart(_ kind: String) async throws {
        // A window of six: its start and its live edge (three before its end) are three segments apart.
        let live = try LivePlaylist(count: 30, seconds: 1, window: 6, server: server, scratch: scratch)
        let rig = try PlaybackRig()
        let player = try rig.player(kind, of: live.url)
        // A Player's item says where its window is.
        let item = kind == "Player" ? try #require((player as? Player)?.currentItem) : nil
        let mover = live.move()
        defer { mover.cancel() }
        player.play()
        // An unclocked device plays what the window holds at once: from segment 3 to the window's end.
        try await until { player.currentTime > start(ofSegment: 4, in: live) }
        if let item {
            let window = try #require(item.seekableTimeRanges.first)
            #expect(window.lowerBound < player.currentTime && player.currentTime <= window.upperBound, "\(player.currentTime) in \(window)")
        }
        player.pause()
        let paused = player.currentTime
        try #require(paused.isFinite, "paused on the time line, not at an end")
        let pausedSegment = Int(paused / start(ofSegment: 1, in: live))
        // Until the segment paused in has left the window, and one more.
        try await until { live.firstPublished >= pausedSegment + 2 }
        let heardBefore = (try? Data(contentsOf: rig.output).count) ?? 0
        let first = live.firstPublished
        player.play()
        if let item {
            try await until { (item.seekableTimeRanges.first?.lowerBound ?? 0) > paused }
            let resumed = try #require(item.seekableTimeRanges.first)
            #expect(resumed.lowerBound >= start(ofSegment: first, in: live) - 0.001, "the window read afresh: \(resumed)")
        }
        try await until { player.currentTime >= start(ofSegment: first, in: live) }
        // The first frames heard after the pause are the window's first segment's (the window may have moved on by
        // one as the player read it again), not its live edge's.
        let samples = try await rig.deviceSamples(atLeast: heardBefore / 8 + 48000)
        let after = samples.left[(heardBefore / 8)...].drop { $0 == 0 }
        let heard: [Float] = after.prefix(14400).dropFirst(4800).flatMap { [Float($0) / 2_147_483_648, 0] }
        let frequency = toneFrequency(heard[...])
        #expect([first, first + 1].contains { abs(frequency - LivePlaylist.frequency(ofSegment: $0)) < 10 },
                "segment \(first)'s tone (or the next's), not the live edge's, \(LivePlaylist.frequency(ofSegment: first + 3)) Hz: \(frequency) Hz")
    }
}

/// The "done": a live playlist read for a minute while its window moves on, every frame once.
///
/// Tagged `.torture`: it waits a minute on its own thread, which holds none of the pool's; among the untagged suites it
/// would start wherever the order put it and end a minute later, after them, and the torture group's wall time is set
/// by a longer test (a recording past 4 GiB), beside which it costs nothing.
@Suite(.timeLimit(.minutes(2)), .tags(.torture)) struct LiveHLSMinuteTests {
    @Test func aLivePlaylistReadForAMinuteWhileItsWindowMovesGivesEveryFrameOnce() async throws {
        let scratch = try ScratchDirectory()
        let server = try HTTPServer()
        // 32 segments of 2 s, a window of four moved on every 2 s: read from segment 1 for 62 s.
        let live = try LivePlaylist(count: 32, seconds: 2, window: 4, server: server, scratch: scratch)
        let mover = live.move()
        defer { mover.cancel() }
        let cache = RemoteCache(directory: scratch.file("cache"))
        // A minute of reads that wait for the segments to come, on a thread of their own.
        let (samples, windows, isLive, frameCount, framePosition) = try await offThePool {
            let file = try AudioFile(forReading: live.url, cache: cache)
            var samples: [Float] = []
            var windows: [Range<TimeInterval>] = []
            while case let read = try file.read(frameCount: 4800), !read.isEmpty {
                samples += read
                if let window = file.liveWindow, window != windows.last { windows.append(window) }
            }
            return (samples, windows, file.isLive, file.frameCount, file.framePosition)
        }
        let ffmpegs = try live.ffmpegSamples(from: 1)
        #expect(samples.count == ffmpegs.count, "every frame: \(samples.count / 2) and ffmpeg's \(ffmpegs.count / 2)")
        #expect(zip(samples, ffmpegs).allSatisfy { abs($0 - $1) < 1e-5 }, "segments 1 to 31, each once, in order")
        #expect(samples.count / 2 >= 60 * 48000, "a minute: \(samples.count / 2) frames")
        // The window moved on 28 times, as read again each time, always four segments long.
        #expect(windows.count >= 28, "\(windows.count) windows read")
        #expect(zip(windows, windows.dropFirst()).allSatisfy { $0.lowerBound < $1.lowerBound }, "\(windows)")
        // The last holds the stream's last segment, cut short where the tones end.
        #expect(windows.dropLast().allSatisfy { abs($0.upperBound - $0.lowerBound - 8) < 0.1 }, "\(windows)")
        #expect(server.requests().filter { $0.path == "/live.m3u8" }.count >= 28, "the playlist read again as it moved")
        #expect(!isLive && frameCount == framePosition, "it ended where the playlist said it ends")
    }
}
