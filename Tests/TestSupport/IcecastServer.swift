import Foundation

/// A small Icecast-style server on 127.0.0.1: every request gets a never-ending stream, `audio` sent again and again,
/// with the fields an Icecast server sends (`icy-name`, `icy-br`, no `Content-Length`), and, for a client that asks
/// with `Icy-MetaData: 1`, an `icy-metaint` and a metadata block after every `metadataInterval` bytes of audio: the
/// title of the audio that follows (`StreamTitle='…';`) when it changed since the last block, else an empty block.
/// Each connection starts at the audio's first byte.
///
/// ```swift
/// let station = try IcecastServer(audio: mp3, titles: [(0, "Song A"), (32_000, "Song B")])
/// let file = try AudioFile(forReading: station.url)
/// ```
public final class IcecastServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let station: Station
    private let loop: ConnectionLoop

    /// Starts serving `audio` as a station whose title is `titles`' last one at or before each offset of `audio`
    /// (offsets in its bytes; the titles start again as the audio does), sent at `bytesPerSecond` (as fast as the
    /// client takes it when nil). The first connection that asks for metadata (a player's, once the address was found to
    /// be live) is closed after `firstListenerBytes` of audio, when given: a dropped stream.
    public init(
        audio: Data, titles: [(offset: Int, title: String)], metadataInterval: Int = 16_000, contentType: String = "audio/mpeg",
        bytesPerSecond: Int? = nil, firstListenerBytes: Int? = nil
    ) throws {
        let (listener, port) = try FaultyHTTPServer.listen(backlog: 16)
        self.port = port
        station = Station(
            audio: audio, titles: titles.sorted { $0.offset < $1.offset }, interval: metadataInterval, contentType: contentType,
            bytesPerSecond: bytesPerSecond, firstListenerBytes: firstListenerBytes)
        loop = ConnectionLoop(listener: listener) { [station] in station.serve($0) }
    }

    deinit { loop.stop() }

    /// The station's address.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/stream")! }

    /// 4 s of stereo MP3 at 48 kHz and 128 kb/s (16,000 bytes a second; no Xing or ID3 header, so every byte is audio):
    /// 2 s of 440 Hz, then 2 s of 880 Hz; made by sox and ffmpeg's LAME in `scratch`.
    public static func twoTones(in scratch: ScratchDirectory) throws -> Data {
        try Sox.synth(to: scratch.path("low.wav"), rate: 48000, channels: 2, seconds: 2, "sine 440")
        try Sox.synth(to: scratch.path("high.wav"), rate: 48000, channels: 2, seconds: 2, "sine 880")
        try Tool.output("sox", [scratch.path("low.wav"), scratch.path("high.wav"), scratch.path("tones.wav")])
        try Tool.output("ffmpeg", [
            "-v", "error", "-y", "-i", scratch.path("tones.wav"), "-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0",
            "-id3v2_version", "0", scratch.path("station.mp3"),
        ])
        return try Data(contentsOf: scratch.file("station.mp3"))
    }

    /// The titles of ``twoTones(in:)``: Song A from the first byte, Song B from the 880 Hz tone on (2 s in: byte 32,000).
    public static let twoTonesTitles = [(offset: 0, title: "Song A"), (offset: 32_000, title: "Song B")]

    /// For each connection so far, in order: whether its request asked for metadata (`Icy-MetaData: 1`).
    public var connections: [Bool] { station.lock.withLock { station.askedForMetadata } }
}

/// What the server's threads share; the mutable part under `lock`.
private final class Station: @unchecked Sendable {
    let audio: Data
    let titles: [(offset: Int, title: String)]
    let interval: Int
    let contentType: String
    let bytesPerSecond: Int?
    let firstListenerBytes: Int?
    let lock = NSLock()
    var askedForMetadata: [Bool] = []

    init(
        audio: Data, titles: [(offset: Int, title: String)], interval: Int, contentType: String, bytesPerSecond: Int?,
        firstListenerBytes: Int?
    ) {
        self.audio = audio
        self.titles = titles
        self.interval = interval
        self.contentType = contentType
        self.bytesPerSecond = bytesPerSecond
        self.firstListenerBytes = firstListenerBytes
    }

    /// The title at `offset` of the audio.
    func title(at offset: Int) -> String {
        titles.last { $0.offset <= offset % audio.count }?.title ?? ""
    }

    func serve(_ connection: Int32) {
        var pending = Data()
        guard let head = FaultyHTTPServer.readHead(connection, pending: &pending) else { return }
        let asks = head.lowercased().contains("\r\nicy-metadata: 1")
        let isFirstListener = lock.withLock {
            askedForMetadata.append(asks)
            return asks && askedForMetadata.filter { $0 }.count == 1
        }
        var response = "HTTP/1.0 200 OK\r\nContent-Type: \(contentType)\r\nicy-name: Test Radio\r\nicy-br: 128\r\nicy-pub: 0\r\n"
        if asks { response += "icy-metaint: \(interval)\r\n" }
        guard send(connection, Data((response + "\r\n").utf8)) else { return }
        let limit = isFirstListener ? firstListenerBytes : nil
        let started = ContinuousClock.now
        var sent = 0
        var lastTitle: String?
        while limit.map({ sent < $0 }) ?? true {
            // Up to the next block (or the limit).
            var count = asks ? interval - sent % interval : 4096
            if let limit { count = min(count, limit - sent) }
            var chunk = Data(capacity: count)
            while chunk.count < count {
                let start = (sent + chunk.count) % audio.count
                chunk.append(audio[start..<min(audio.count, start + count - chunk.count)])
            }
            guard send(connection, chunk) else { return }
            sent += count
            if let bytesPerSecond {
                let due = started + .milliseconds(sent * 1000 / bytesPerSecond)
                if due > .now { Thread.sleep(forTimeInterval: Double((due - .now).components.attoseconds) * 1e-18 + Double((due - .now).components.seconds)) }
            }
            guard asks, sent % interval == 0 else { continue }
            let title = title(at: sent)
            var block = Data()
            if title != lastTitle {
                block = Data("StreamTitle='\(title)';".utf8)
                block.append(Data(repeating: 0, count: (16 - block.count % 16) % 16))
                lastTitle = title
            }
            guard send(connection, Data([UInt8(block.count / 16)]) + block) else { return }
        }
    }

    private func send(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { FaultyHTTPServer.sendAll(connection, $0) }
    }
}

#if canImport(Testing)
import Testing

/// The station as curl hears it: Icecast's fields, and metadata blocks every interval only when asked for.
@Suite(.timeLimit(.minutes(1))) struct IcecastServerTests {
    @Test func aListenerAskingForMetadataGetsABlockEveryIntervalWithTheTitleOfWhatFollows() throws {
        let audio = Data((0..<40_000).map { UInt8($0 % 200 + 1) })
        let station = try IcecastServer(audio: audio, titles: [(0, "A"), (20_000, "B")], metadataInterval: 10_000)
        let scratch = try ScratchDirectory()
        // The stream never ends: curl stops at its time limit (28) with what came.
        let asked = try Tool.run("curl", [
            "-s", "--max-time", "1", "-H", "Icy-MetaData: 1", "-D", scratch.path("head"), "-o", scratch.path("body"),
            station.url.absoluteString,
        ])
        #expect(asked.status == 28)
        let head = try String(contentsOfFile: scratch.path("head"), encoding: .utf8)
        #expect(head.contains("icy-metaint: 10000") && head.contains("icy-name: Test Radio") && !head.contains("Content-Length"))
        let body = try Data(contentsOf: scratch.file("body"))
        try #require(body.count > 40_100)
        /// The block after `blocks` blocks of audio, and where the audio after it starts.
        var offset = 0
        var titles: [String] = []
        for _ in 0..<4 {
            #expect(body[offset..<(offset + 10_000)] == audio[(titles.count * 10_000 % 40_000)..<(titles.count * 10_000 % 40_000 + 10_000)])
            offset += 10_000
            let length = Int(body[offset]) * 16
            titles.append(String(decoding: body[(offset + 1)..<(offset + 1 + length)].prefix { $0 != 0 }, as: UTF8.self))
            offset += 1 + length
        }
        // A block says the title of the audio after it, and only when it changed.
        #expect(titles == ["StreamTitle='A';", "StreamTitle='B';", "", "StreamTitle='A';"])
        let plain = try Tool.run("curl", ["-s", "--max-time", "1", "-D", scratch.path("plain-head"), "-o", scratch.path("plain"), station.url.absoluteString])
        #expect(plain.status == 28)
        #expect(try !String(contentsOfFile: scratch.path("plain-head"), encoding: .utf8).contains("icy-metaint"))
        #expect(try Data(contentsOf: scratch.file("plain")).prefix(40_000) == audio, "the audio alone")
        #expect(station.connections == [true, false])
    }
}
#endif
