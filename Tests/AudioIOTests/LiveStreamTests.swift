@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// An Icecast station plays as it comes: an address whose server says it is a live stream opens without waiting for
/// an end, reads FFmpeg's own decoding of the station's bytes, has no end and no seeking, and what the station says
/// (`StreamTitle`) comes out of the audio and arrives at the time of the audio it came with.
@Suite(.timeLimit(.minutes(1))) struct LiveStreamTests {
    let scratch: ScratchDirectory
    /// The station's audio: 2 s of 440 Hz, then 2 s of 880 Hz, as MP3 (see ``IcecastServer/twoTones(in:)``).
    let mp3: URL
    static let titles = IcecastServer.twoTonesTitles

    init() throws {
        scratch = try ScratchDirectory()
        _ = try IcecastServer.twoTones(in: scratch)
        mp3 = scratch.file("station.mp3")
    }

    /// Reads `seconds` of `file` in reads of 1,024 frames, as a player's decoder does; returns the samples and the
    /// timed metadata read on the way.
    func read(_ seconds: Double, of file: AudioFile) throws -> (samples: [Float], metadata: [TimedMetadata]) {
        var samples: [Float] = []
        var metadata: [TimedMetadata] = []
        while samples.count < Int(seconds * file.sampleRate) * file.channelCount {
            let chunk = try file.read(frameCount: 1024)
            #expect(!chunk.isEmpty, "a live stream has no end")
            if chunk.isEmpty { break }
            samples += chunk
            metadata += file.takeTimedMetadata().map(\.metadata)
        }
        return (samples, metadata)
    }

    @Test func aStationReadsAsFFmpegDecodesItsBytesWithItsTitlesAtTheirTimes() throws {
        let station = try IcecastServer(audio: try Data(contentsOf: mp3), titles: Self.titles)
        let file = try AudioFile(forReading: station.url, cache: RemoteCache(directory: scratch.file("cache")))
        #expect(file.isLive && file.duration == .infinity && file.frameCount == .max)
        #expect(file.format == .mp3 && file.sampleRate == 48000 && file.channelCount == 2)
        #expect(throws: AudioFileError.self) { try file.seek(toFrame: 48000) }

        let (samples, metadata) = try read(3.9, of: file)
        let ffmpegs = try FFmpeg.samples(of: mp3.path, in: scratch)
        let compared = min(samples.count, ffmpegs.count)
        #expect(compared >= 370_000)
        #expect(zip(samples[..<compared], ffmpegs[..<compared]).allSatisfy { abs($0 - $1) < 1e-6 }, "FFmpeg's own samples")

        // The first block comes after the first 16,000 bytes (1 s), as an Icecast server sends it.
        #expect(metadata.map(\.title) == ["Song A", "Song B"])
        #expect(abs((metadata.first?.time ?? 0) - 1.0) < 0.1)
        #expect(abs((metadata.last?.time ?? 0) - 2.0) < 0.1, "Song B from the 880 Hz tone on")
        #expect(station.connections == [false, true], "the first request found it live; the stream asked for metadata")
    }

    @Test func aDroppedStationIsConnectedAgainAndPlaysOn() throws {
        let station = try IcecastServer(audio: try Data(contentsOf: mp3), titles: Self.titles, firstListenerBytes: 40_000)
        let file = try AudioFile(forReading: station.url, cache: RemoteCache(directory: scratch.file("cache")))
        // 2.5 s came before the drop; 3 s more after it, from the station's start again.
        let (samples, metadata) = try read(5.5, of: file)
        #expect(samples.count >= 5 * 48000 * 2)
        #expect(station.connections.count == 3, "found live, dropped, connected again")
        #expect(metadata.map(\.title) == ["Song A", "Song B", "Song A", "Song B"])
    }

    @Test func aStationCannotBeDownloadedWholeAndLeavesNothingInTheCache() throws {
        let station = try IcecastServer(audio: try Data(contentsOf: mp3), titles: Self.titles)
        let cache = RemoteCache(directory: scratch.file("cache"))
        let started = ContinuousClock.now
        #expect(throws: AudioFileError(path: station.url.absoluteString, reason: .downloadFailed(.liveStream))) {
            try cache.download(station.url, to: scratch.file("copy.mp3"))
        }
        #expect(ContinuousClock.now - started < .seconds(5), "refused at the first answer, not after waiting for an end")
        #expect(cache.items.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("copy.mp3")))
        #expect(DownloadError.liveStream.description == "it is a live stream, which never ends and cannot be downloaded whole; play it instead")
    }

    @Test(arguments: ["Player", "AudioPlayer"])
    func aPlayerTellsEachTitleOnceItsAudioIsHeardAndDoesNotSeek(_ kind: String) async throws {
        let rig = try PlaybackRig()
        // At twice real time: the unclocked device hears what the decoder reads, as it reads it.
        let station = try IcecastServer(audio: try Data(contentsOf: mp3), titles: Self.titles, bytesPerSecond: 32_000)
        let player = try rig.player(kind, of: station.url)
        let titles = Titles()
        let observation = player.observe { event in
            if case .timedMetadataChanged(let metadata) = event { titles.add(metadata, heardAt: player.currentTime) }
        }
        defer { observation.cancel() }
        player.play()
        try await until { titles.all.count >= 2 }
        player.pause()
        // Two at least: a busy machine may look later, when the station has gone round again.
        let told = titles.all
        #expect(told.prefix(2).map(\.metadata.title) == ["Song A", "Song B"])
        for (metadata, heard) in told {
            #expect(heard >= metadata.time, "told at \(heard) s, before its audio at \(metadata.time) s was heard")
        }
        try await until { titles.all.last?.metadata == player.timedMetadata }
        #expect(player.playbackDuration == .infinity)
        let position = player.currentTime
        player.currentTime = 0.5
        #expect(player.currentTime >= position, "a live stream does not seek")
        #expect(player.status == .readyToPlay)
    }
}

/// Titles told, and where playback was heard when each was.
private final class Titles: @unchecked Sendable {
    private let lock = NSLock()
    private var told: [(metadata: TimedMetadata, heard: TimeInterval)] = []

    func add(_ metadata: TimedMetadata, heardAt time: TimeInterval) {
        lock.withLock { told.append((metadata, time)) }
    }

    var all: [(metadata: TimedMetadata, heard: TimeInterval)] { lock.withLock { told } }
}

/// The pieces of an ICY stream, wherever the network cuts it, and what a metadata block says.
@Suite struct IcyMetadataTests {
    @Test func audioAndBlocksComeApartWhereverTheBodyIsCut() {
        // 10 bytes of audio, a block of 16, 10 bytes, an empty block, 10 bytes.
        let block = Array("StreamTitle='A';".utf8)
        let body: [UInt8] = Array(0..<10) + [1] + block + Array(10..<20) + [0] + Array(20..<30)
        for cut in 1...body.count {
            var demultiplexer = IcyDemultiplexer(interval: 10)
            var audio: [UInt8] = []
            var blocks: [[UInt8]] = []
            for start in stride(from: 0, to: body.count, by: cut) {
                body[start..<min(start + cut, body.count)].withUnsafeBytes { bytes in
                    demultiplexer.split(bytes, audio: { audio += $0 }, metadata: { blocks.append($0) })
                }
            }
            #expect(audio == Array(0..<30), "in pieces of \(cut)")
            #expect(blocks == [block], "in pieces of \(cut)")
        }
    }

    @Test func aTitleIsReadAsStationsWriteIt() {
        func title(_ text: String) -> String? { IcyMetadata(block: Array(text.utf8) + [0, 0, 0]).title }
        #expect(title("StreamTitle='Artist - Song';StreamUrl='';") == "Artist - Song")
        #expect(title("StreamTitle='Rock 'n' Roll';StreamUrl='http://x';") == "Rock 'n' Roll", "quotes are not escaped")
        #expect(title("StreamTitle='It's ';' here';") == "It's ';' here")
        #expect(title("StreamTitle='No end'") == "No end")
        #expect(title("StreamTitle='';") == "")
        #expect(title("StreamUrl='http://x';") == nil)
        #expect(title("StreamTitle='\u{1B}[31mRed\u{07}';") == "[31mRed", "no control character reaches a terminal")
        #expect(IcyMetadata(block: Array("StreamTitle='Caf".utf8) + [0xE9] + Array("';".utf8)).title == "Café", "Latin-1")
        #expect(IcyMetadata(block: Array("StreamTitle='Café';".utf8)).title == "Café", "UTF-8")
        #expect(IcyMetadata(block: Array("StreamTitle='A';StreamUrl='http://radio.example/now';".utf8)).url == "http://radio.example/now")
    }
}

/// On a device with a clock, a station's title is told when the audio it came with reaches the listener.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct ClockedLiveStreamTests {
    @Test func aTitleIsToldWithinAFewPeriodsOfItsAudioBeingHeard() async throws {
        try ALSATestDevices.install()
        let scratch = try ScratchDirectory()
        let mp3 = try IcecastServer.twoTones(in: scratch)
        let station = try IcecastServer(audio: mp3, titles: IcecastServer.twoTonesTitles)
        try await PulseAudioServer.own { server in
            let player = try AudioPlayer(contentsOf: station.url)
            player.currentDevice = server.device
            let titles = Titles()
            let observation = player.observe { event in
                if case .timedMetadataChanged(let metadata) = event { titles.add(metadata, heardAt: player.currentTime) }
            }
            defer { observation.cancel() }
            #expect(player.play())
            try await until { titles.all.count >= 2 }
            player.stop()
            let told = titles.all
            #expect(told.prefix(2).map(\.metadata.title) == ["Song A", "Song B"])
            for (metadata, heard) in told {
                #expect(heard >= metadata.time && heard < metadata.time + 0.1, "told at \(heard) s, of \(metadata.time) s")
            }
        }
    }
}
