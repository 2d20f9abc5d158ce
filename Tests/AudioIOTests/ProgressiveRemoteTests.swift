import AudioIO
import Foundation
import TestSupport
import Testing

/// Every format FFmpeg reads plays from an address as it downloads: an address served so slowly that the whole file
/// takes 16 s opens, and its first second reads or renders, after less than a quarter of the file has been sent; its
/// duration is ffprobe's, and every sample is FFmpeg's own decoding of the file.
@Suite(.timeLimit(.minutes(2))) struct ProgressiveRemoteTests {
    /// A kind of file, made from 40 s of mono noise.
    struct Kind: CustomTestStringConvertible, Sendable {
        let name: String
        /// ffmpeg's arguments; none for AMR, which Debian's ffmpeg cannot encode.
        let arguments: [String]
        var testDescription: String { name }
    }

    static let kinds = [
        Kind(name: "adts.aac", arguments: ["-c:a", "aac", "-b:a", "128k"]),
        // ffmpeg writes an MP4's index (`moov`) after the audio unless asked to move it to the front.
        Kind(name: "moov-at-end.m4a", arguments: ["-c:a", "aac", "-b:a", "128k"]),
        Kind(name: "faststart.m4a", arguments: ["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"]),
        Kind(name: "wmav2.wma", arguments: ["-c:a", "wmav2", "-b:a", "128k"]),
        Kind(name: "nb.amr", arguments: []),
    ]

    let scratch: ScratchDirectory
    let cache: RemoteCache

    init() throws {
        scratch = try ScratchDirectory()
        cache = RemoteCache(directory: scratch.file("cache"))
    }

    /// Makes `kind`'s file: 40 s at 44.1 kHz (AMR: 2,000 frames of 20 ms at 8 kHz, 12.2 kb/s, of random bits, in
    /// AMR's storage format, RFC 4867 §5).
    func make(_ kind: Kind) throws -> URL {
        let file = scratch.file(kind.name)
        if kind.arguments.isEmpty {
            var random = SeededGenerator(seed: 35)
            let frames = (0..<2000).map { _ in [UInt8(7 << 3 | 4)] + (0..<31).map { _ in UInt8.random(in: 0...255, using: &random) } }
            try Data(Array("#!AMR\n".utf8) + frames.joined()).write(to: file)
        } else {
            let source = scratch.path("noise.wav")
            try Sox.synth(to: source, rate: 44100, channels: 1, seconds: 40, "whitenoise")
            try Tool.output("ffmpeg", ["-v", "error", "-i", source] + kind.arguments + [file.path])
        }
        return file
    }

    /// A server that sends each response at a sixteenth of `file`'s size a second, serving it.
    func throttledServer(for file: URL) throws -> (HTTPServer, size: Int64) {
        let size = try Int64(FileManager.default.attributesOfItem(atPath: file.path)[.size] as! Int)
        let server = try HTTPServer(rate: "\(size / 16)")
        try server.put(file, as: file.lastPathComponent)
        return (server, size)
    }

    /// What ffprobe says the file lasts, in seconds (for ADTS, WMA and AMR, as FFmpeg estimates it).
    func probedDuration(of file: URL) throws -> Double {
        let text = try Tool.output("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
        return try #require(Double(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The bytes `server` sent once the responses under way when the client let go of them are logged: nginx logs an
    /// aborted response at its next write, a throttled one within a second or so.
    func bytesSentAfterLettingGo(_ server: HTTPServer) -> Int64 {
        var sent = (count: -1, bytes: Int64(-1))
        let deadline = ContinuousClock.now + .seconds(8)
        while ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 1.5)
            let requests = server.requests()
            let now = (count: requests.count, bytes: requests.reduce(0) { $0 + $1.bodyBytes })
            if now == sent { break }
            sent = now
        }
        return sent.bytes
    }

    @Test(arguments: kinds)
    func aFileOpensAndReadsItsFirstSecondLongBeforeItIsDownloaded(kind: Kind) throws {
        let local = try make(kind)
        let (server, size) = try throttledServer(for: local)
        let expected = try FFmpeg.samples(of: local.path, in: scratch)
        let started = ContinuousClock.now
        var file: AudioFile? = try AudioFile(forReading: server.url(kind.name), cache: cache)
        let opened = ContinuousClock.now - started
        let rate = Int(file!.sampleRate)
        let first = try file!.read(frameCount: rate)
        let firstSecond = ContinuousClock.now - started
        #expect(first.count == rate && firstDifference(first, Array(expected.prefix(rate))) == nil)
        #expect(abs(file!.duration - (try probedDuration(of: local))) <= 0.0005, "\(file!.duration) s")
        file = nil
        let sent = bytesSentAfterLettingGo(server)
        #expect(sent < size / 4, "opened after \(opened), read its first second after \(firstSecond), \(sent) of \(size) bytes sent")
        #expect(firstSecond < .seconds(4), "of a download of 16 s")

        // Then read whole, unthrottled: FFmpeg's samples, every one, and its exact length at the end.
        server.kill()
        try server.limit(rate: nil)
        try server.start()
        let whole = try AudioFile(forReading: server.url(kind.name), cache: cache)
        // ffmpeg 5.1 decodes an M4A's last packet whole, past the length its edit list states, which ffprobe gives.
        let length = kind.name.hasSuffix(".m4a") ? Int((try probedDuration(of: local) * 44100).rounded()) : expected.count
        let read = try whole.read(frameCount: expected.count + 48000)
        #expect(read.count == length && firstDifference(read, Array(expected.prefix(length))) == nil)
        #expect(whole.frameCount == Int64(length), "exact once read to the end")
        #expect(try whole.read(frameCount: 10).isEmpty)
    }

    @Test(arguments: kinds)
    func aPlayerRendersItsFirstSecondLongBeforeTheFileIsDownloaded(kind: Kind) throws {
        let local = try make(kind)
        let (server, size) = try throttledServer(for: local)
        let expected = try FFmpeg.samples(of: local.path, in: scratch)
        let rate = kind.arguments.isEmpty ? 8000 : 44100
        let started = ContinuousClock.now
        var renderer: OfflineRenderer? = try OfflineRenderer(sampleRate: Double(rate), channelCount: 1)
        var player: AudioPlayer? = try AudioPlayer(contentsOf: server.url(kind.name), cache: cache)
        player!.currentDevice = renderer!.device
        #expect(player!.play(), "\(player!.status)")
        let first = renderer!.render(frameCount: rate)
        let firstSecond = ContinuousClock.now - started
        #expect(firstDifference(first, Array(expected.prefix(rate))) == nil)
        #expect(abs(player!.duration - (try probedDuration(of: local))) <= 0.0005, "\(player!.duration) s")
        player = nil
        renderer = nil
        let sent = bytesSentAfterLettingGo(server)
        #expect(sent < size / 4, "rendered its first second after \(firstSecond), \(sent) of \(size) bytes sent")
    }

    /// An ADTS file whose loud start makes FFmpeg estimate 18 s of its 40: a reader and a player read on past the
    /// estimate to the last frame, and the file's length is then exact.
    @Test func anEstimateShortOfTheEndIsReadPast() throws {
        let noise = scratch.path("noise.wav"), quiet = scratch.path("quiet.wav"), source = scratch.path("source.wav")
        try Sox.synth(to: noise, rate: 44100, channels: 1, bits: 32, seconds: 5, "whitenoise")
        try Sox.synth(to: quiet, rate: 44100, channels: 1, bits: 32, seconds: 35, "sine 440", volume: 0.01)
        try Tool.output("sox", [noise, quiet, source])
        let local = scratch.file("short-estimate.aac")
        try Tool.output("ffmpeg", ["-v", "error", "-i", source, "-c:a", "aac", "-b:a", "128k", local.path])
        let server = try HTTPServer()
        try server.put(local, as: local.lastPathComponent)
        let expected = try FFmpeg.samples(of: local.path, in: scratch)
        let estimate = try probedDuration(of: local)
        try #require(estimate < 30, "ffprobe's estimate, \(estimate) s, is short")

        let file = try AudioFile(forReading: server.url(local.lastPathComponent), cache: cache)
        #expect(abs(file.duration - estimate) <= 0.0005)
        let read = try file.read(frameCount: expected.count + 48000)
        #expect(read.count == expected.count && firstDifference(read, expected) == nil)
        #expect(file.frameCount == Int64(expected.count))

        let renderer = try OfflineRenderer(sampleRate: 44100, channelCount: 1)
        let player = try AudioPlayer(contentsOf: server.url(local.lastPathComponent), cache: RemoteCache(directory: scratch.file("other")))
        player.currentDevice = renderer.device
        #expect(player.play())
        #expect(firstDifference(renderer.render(frameCount: expected.count), expected) == nil)
    }

    /// The index at the end of an M4A is fetched with one range request, and the audio from its start: the file is
    /// never read through to its index.
    @Test func anM4AWithItsIndexAtTheEndAsksForItWithARange() throws {
        let local = try make(Self.kinds[1])
        let (server, size) = try throttledServer(for: local)
        var file: AudioFile? = try AudioFile(forReading: server.url(local.lastPathComponent), cache: cache)
        _ = try file!.read(frameCount: 44100)
        file = nil
        _ = bytesSentAfterLettingGo(server)
        let ranges = server.requests().map(\.range)
        let fromEnd = ranges.compactMap { $0.split(separator: "=").last?.split(separator: "-").first.flatMap { Int64($0) } }
            .filter { $0 > size / 2 }
        #expect(fromEnd.count == 1, "\(ranges)")
    }
}
