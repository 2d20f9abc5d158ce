import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// An HLS stream as `ffmpeg -f hls` cuts it from a run of tones (segment n sounds at ``frequency(ofSegment:)``),
/// served by nginx: every segment, and a live playlist, `live.m3u8`, whose window of a few segments the rig moves on
/// one segment at a time, as a live server rewrites it (written whole, then renamed).
struct LivePlaylist: Sendable {
    /// The segments' `#EXTINF` lines and names, in order.
    let segments: [(info: String, name: String)]
    /// The playlist's header lines ffmpeg wrote (version, target duration, an fMP4 stream's map), without the media
    /// sequence number.
    let header: [String]
    /// Segments in the window.
    let window: Int
    /// Each segment's length in seconds, as ffmpeg was asked to cut them.
    let seconds: Int
    let server: HTTPServer
    /// Where ffmpeg wrote the segments.
    let directory: URL
    let scratch: ScratchDirectory

    /// The codecs tested, with what ffmpeg is told to encode and segment them with.
    enum Codec: String, CaseIterable, Sendable {
        case aac, mp3, opus

        var arguments: [String] {
            switch self {
            case .aac: ["-c:a", "aac", "-b:a", "128k"]
            case .mp3: ["-c:a", "libmp3lame", "-b:a", "128k"]
            case .opus: ["-c:a", "libopus", "-b:a", "96k", "-hls_segment_type", "fmp4"]
            }
        }

        var segmentExtension: String { self == .opus ? "m4s" : "ts" }
    }

    /// `count` tones of `seconds` each, as `codec`, in segments of `seconds`, served by `server`; the live playlist's
    /// window is `window` segments, published from the first.
    init(count: Int, seconds: Int, window: Int, codec: Codec = .aac, server: HTTPServer, scratch: ScratchDirectory) throws {
        self.window = window
        self.seconds = seconds
        self.server = server
        self.scratch = scratch
        directory = scratch.file("live-" + codec.rawValue)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tones = (0..<count).map { scratch.path("tone-\(seconds)-\($0).wav") }
        for (number, tone) in tones.enumerated() {
            try Sox.synth(to: tone, rate: 48000, channels: 2, seconds: Double(seconds), "sine \(Self.frequency(ofSegment: number))")
        }
        let source = scratch.path("tones-\(seconds)-\(count).wav")
        if !FileManager.default.fileExists(atPath: source) { try Tool.output("sox", tones + [source]) }
        try Tool.output("ffmpeg", [
            "-v", "error", "-i", source] + codec.arguments + ["-f", "hls", "-hls_time", String(seconds), "-hls_list_size", "0",
            "-hls_segment_filename", directory.path + "/seg%03d." + codec.segmentExtension, directory.path + "/all.m3u8",
        ])
        let lines = try String(contentsOf: directory.appendingPathComponent("all.m3u8"), encoding: .utf8).split(separator: "\n").map(String.init)
        segments = lines.indices.filter { lines[$0].hasPrefix("#EXTINF") }.map { (lines[$0], lines[$0 + 1]) }
        header = lines.filter { line in
            ["#EXT-X-VERSION", "#EXT-X-TARGETDURATION", "#EXT-X-MAP"].contains { line.hasPrefix($0) }
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasSuffix(".m3u8") {
            try server.put(directory.appendingPathComponent(name), as: name)
        }
        try publish(from: 0)
    }

    /// The frequency of segment `number`'s tone, in hertz: 300 Hz, then 50 Hz higher each segment.
    static func frequency(ofSegment number: Int) -> Double { Double(300 + 50 * number) }

    /// The live playlist's address.
    var url: URL { server.url("live.m3u8") }

    /// The playlist of segments `range`: a live window, or with `#EXT-X-ENDLIST` when `ends`.
    func text(of range: Range<Int>, ends: Bool) -> String {
        var text = "#EXTM3U\n" + header.joined(separator: "\n") + "\n#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n"
        for (info, name) in segments[range] { text += "\(info)\n\(name)\n" }
        return ends ? text + "#EXT-X-ENDLIST\n" : text
    }

    /// Publishes the window from segment `first`; the last window says the stream ends.
    func publish(from first: Int) throws {
        let end = min(first + window, segments.count)
        let temporary = server.root.appendingPathComponent(".live.m3u8")
        try text(of: first..<end, ends: end == segments.count).write(to: temporary, atomically: false, encoding: .utf8)
        _ = rename(temporary.path, server.root.appendingPathComponent("live.m3u8").path)
    }

    /// The first segment of the window published now.
    var firstPublished: Int {
        let text = (try? String(contentsOf: server.root.appendingPathComponent("live.m3u8"), encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }
        return line.flatMap { Int($0.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) } ?? 0
    }

    /// Moves the window on one segment every ``seconds`` until the last window, which ends, on a thread of its own:
    /// the tests' pool may have every thread blocked in a read waiting for the next segment.
    func move() -> WindowMover {
        WindowMover(steps: segments.count - window, every: Double(seconds)) { try? publish(from: $0) }
    }

    /// What ffmpeg decodes of segments `first...` of the local copies, as a playlist that ends: the frames a reader
    /// starting at segment `first` should read, decoded the same way.
    func ffmpegSamples(from first: Int) throws -> [Float] {
        let playlist = directory.appendingPathComponent("from\(first).m3u8")
        try text(of: first..<segments.count, ends: true).write(to: playlist, atomically: true, encoding: .utf8)
        return try FFmpeg.samples(of: playlist.path, in: scratch)
    }
}

/// A thread that publishes a live playlist's windows in turn until it is cancelled.
final class WindowMover: Sendable {
    private let isCancelled = Mutex(false)

    /// Calls `publish` with 1, 2, ... `steps`, each `seconds` after the one before.
    init(steps: Int, every seconds: Double, _ publish: @escaping @Sendable (Int) -> Void) {
        Thread.detachNewThread { [self] in
            for step in 1...steps {
                Thread.sleep(forTimeInterval: seconds)
                if isCancelled.withLock({ $0 }) { return }
                publish(step)
            }
        }
    }

    func cancel() {
        isCancelled.withLock { $0 = true }
    }
}

/// The frequency of the tone in `samples` (interleaved stereo, left channel), in hertz, by its zero crossings.
func toneFrequency(_ samples: ArraySlice<Float>, rate: Double = 48000) -> Double {
    let left = stride(from: samples.startIndex, to: samples.endIndex - 1, by: 2).map { samples[$0] }
    let crossings = zip(left, left.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
    return Double(crossings) * rate / Double(left.count)
}

/// The rig itself: what it serves is what ffmpeg cut, its window moves as it says, and its tone meter reads tones.
@Suite(.timeLimit(.minutes(1))) struct LivePlaylistTests {
    @Test func itServesEverySegmentAndAWindowThatMovesOnAndEnds() async throws {
        let scratch = try ScratchDirectory()
        let server = try HTTPServer()
        let live = try LivePlaylist(count: 5, seconds: 1, window: 3, server: server, scratch: scratch)
        // Five tones of a second, and a short tail of the encoder's padding where there is one.
        #expect((5...6).contains(live.segments.count), "\(live.segments.map(\.info))")
        func published() throws -> String {
            try Tool.run("curl", ["-s", "--max-time", "5", live.url.absoluteString]).standardOutput
        }
        let first = try published()
        #expect(first.hasPrefix("#EXTM3U\n") && first.contains("#EXT-X-MEDIA-SEQUENCE:0\n") && !first.contains("#EXT-X-ENDLIST"))
        #expect(first.components(separatedBy: "#EXTINF").count - 1 == 3, "a window of three: \(first)")
        for (_, name) in live.segments {
            let status = try Tool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", server.url(name).absoluteString])
            #expect(status.standardOutput == "200", "\(name) served")
        }
        // Moved on a segment a second, to the last window, which ends.
        let mover = live.move()
        defer { mover.cancel() }
        let lastFirst = live.segments.count - 3
        #expect(try await eventually(within: 10) { live.firstPublished == lastFirst })
        let last = try published()
        #expect(last.contains("#EXT-X-MEDIA-SEQUENCE:\(lastFirst)\n") && last.hasSuffix("#EXT-X-ENDLIST\n"), "\(last)")
    }

    @Test func ffmpegsSamplesFromASegmentOnAreItsTonesAndTheMeterReadsThem() throws {
        let scratch = try ScratchDirectory()
        let server = try HTTPServer()
        let live = try LivePlaylist(count: 4, seconds: 1, window: 2, server: server, scratch: scratch)
        let samples = try live.ffmpegSamples(from: 2)
        // Segments 2 and 3, a second each (AAC's priming aside).
        #expect(abs(samples.count / 2 - 2 * 48000) < 4800, "\(samples.count / 2) frames")
        let inSegment2 = samples[(2 * 12000)..<(2 * 36000)]
        let inSegment3 = samples[(2 * 60000)..<(2 * 84000)]
        #expect(abs(toneFrequency(inSegment2) - LivePlaylist.frequency(ofSegment: 2)) < 5)
        #expect(abs(toneFrequency(inSegment3) - LivePlaylist.frequency(ofSegment: 3)) < 5)
    }
}
