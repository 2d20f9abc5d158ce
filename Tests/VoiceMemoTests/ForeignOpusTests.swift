import Foundation
import TestSupport
import Testing

/// Opus files that other encoders made — opusenc and ffmpeg's libopus, mono and stereo, frames of 2.5 to 60 ms, tags
/// or none, lengths that are no whole number of packets, so that the last page trims the stream's end — import with
/// every sample opusdec gives, still unencoded, and export, rename, trim and normalize work on them.
@Suite(.timeLimit(.minutes(3))) struct ForeignOpusTests {
    /// One file a user might bring.
    struct Source: CustomTestStringConvertible, Sendable {
        enum Encoder: String, Sendable { case opusenc, ffmpeg }
        let encoder: Encoder
        let seconds: Double
        let channels: Int
        /// Milliseconds of audio in each packet.
        let frame: Double
        /// sox's `synth` effect the source is made of.
        var signal = "sine 440"
        /// Kilobits per second; `nil` for the encoder's default.
        var bitrate: Int?
        var tagged = false

        var testDescription: String {
            "\(seconds) s, \(channels) channel(s), \(frame) ms frames, \(signal) from \(encoder.rawValue)"
                + (bitrate.map { " at \($0) kb/s" } ?? "") + (tagged ? ", tagged" : "")
        }
    }

    /// Lengths seen to fail (4.95 s, 0.731 s stereo, 6.49 s from ffmpeg at 40 ms), shorter than a packet, shorter than a
    /// page, and lengths drawn at random from a fixed seed: each ends part-way through a packet.
    static let sources: [Source] = {
        var fixed: [Source] = [
            Source(encoder: .opusenc, seconds: 4.95, channels: 1, frame: 20),
            Source(encoder: .opusenc, seconds: 0.731, channels: 2, frame: 20, signal: "pinknoise"),
            Source(encoder: .opusenc, seconds: 7.77, channels: 1, frame: 60, tagged: true),
            Source(encoder: .opusenc, seconds: 0.013, channels: 1, frame: 20),
            Source(encoder: .opusenc, seconds: 2.5013, channels: 2, frame: 2.5, signal: "pinknoise", bitrate: 96),
            Source(encoder: .opusenc, seconds: 3.21, channels: 1, frame: 10, signal: "pinknoise", bitrate: 16, tagged: true),
            Source(encoder: .ffmpeg, seconds: 6.49, channels: 2, frame: 40),
            Source(encoder: .ffmpeg, seconds: 1.017, channels: 2, frame: 20, signal: "pinknoise", tagged: true),
            Source(encoder: .ffmpeg, seconds: 3.3, channels: 1, frame: 60, bitrate: 24),
            Source(encoder: .ffmpeg, seconds: 0.001, channels: 2, frame: 20),
        ]
        var random = SeededGenerator(seed: 32)
        for index in 0..<4 {
            let seconds = (Double.random(in: 0.2...9, using: &random) * 1000).rounded() / 1000
            fixed.append(Source(
                encoder: index.isMultiple(of: 2) ? .opusenc : .ffmpeg, seconds: seconds, channels: 1 + index % 2,
                frame: [10, 20, 40, 60][index], signal: index < 2 ? "pinknoise" : "sine 1000"))
        }
        return fixed
    }()

    /// Makes `source` as a user's tool would, in `cli`'s scratch directory.
    private func make(_ source: Source, in cli: CLI) throws -> String {
        let wav = cli.scratch.path("source.wav")
        try Sox.synth(to: wav, rate: 48000, channels: source.channels, seconds: source.seconds, source.signal, volume: 0.3)
        let opus = cli.scratch.path("source.opus")
        switch source.encoder {
        case .opusenc:
            var arguments = ["--quiet", "--framesize", "\(source.frame)".replacingOccurrences(of: ".0", with: "")]
            if let bitrate = source.bitrate { arguments += ["--bitrate", "\(bitrate)"] }
            if source.tagged { arguments += ["--title", "Walk home", "--artist", "Me", "--comment", "PLACE=park"] }
            try Tool.output("opusenc", arguments + [wav, opus])
        case .ffmpeg:
            var arguments = ["-v", "error", "-i", wav, "-c:a", "libopus", "-frame_duration", "\(source.frame)"]
            if let bitrate = source.bitrate { arguments += ["-b:a", "\(bitrate)k"] }
            if source.tagged { arguments += ["-metadata", "title=Walk home"] }
            try Tool.output("ffmpeg", arguments + [opus])
        }
        return opus
    }

    /// What opusdec decodes `path` to: 32-bit floats, no dither (sox reads them back left-justified in 32 bits).
    private func decoded(_ path: String, in cli: CLI) throws -> [Int32] {
        let wav = cli.scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", "--float", path, wav])
        return try Sox.samples(of: wav)
    }

    @Test(arguments: sources)
    func importKeepsEverySampleOpusdecGivesAndEveryEditWorks(_ source: Source) throws {
        let cli = try CLI()
        let file = try make(source, in: cli)
        let original = try decoded(file, in: cli)
        let frames = original.count / source.channels
        #expect(abs(frames - Int((source.seconds * 48000).rounded())) <= 1, "opusdec gives \(frames) frames")

        let imported = try cli.run("import", file, "--title", "walk", "--json")
        try #require(imported.status == 0, "\(imported.standardError)")
        let memo = try cli.json(imported)
        let stored = try #require(memo["file"] as? String)
        #expect(try decoded(stored, in: cli) == original, "the memo decodes to the source's samples, unencoded")
        let duration = try #require(memo["duration"] as? Double)
        #expect(abs(duration * 48000 - Double(frames)) < 0.01, "the memo lasts \(duration) s")

        let wav = cli.scratch.path("out.wav")
        let export = try cli.run("export", "walk", wav)
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try Sox.info(wav).frames == frames, "the exported WAV holds opusdec's frames")

        let renamed = try cli.run("rename", "walk", "walk home")
        #expect(renamed.status == 0, "\(renamed.standardError)")
        let opus = cli.scratch.path("out.opus")
        #expect(try cli.run("export", "walk home", opus).status == 0)
        #expect(try FFprobe.tags(of: opus).tags["title"] == "walk home")
        #expect(try decoded(opus, in: cli) == original, "the renamed memo's export decodes to the source's samples")

        let normalized = cli.scratch.path("normalized.opus")
        let normalize = try cli.run("export", "walk home", normalized, "--normalize", "-16")
        #expect(normalize.status == 0, "\(normalize.standardError)")
        #expect(try decoded(normalized, in: cli).count == original.count, "normalizing keeps every sample")

        // From a third of the way to the end: the trimmed memo keeps the source's end trimming.
        guard frames >= 4800 else { return }
        let start = (source.seconds / 3 * 1000).rounded() / 1000
        let trim = try cli.run("trim", "walk home", "--start", "\(start)", "--end", "\(source.seconds)")
        #expect(trim.status == 0, "\(trim.standardError)")
        let trimmed = try #require(try cli.json(cli.run("info", "walk home", "--json"))["file"] as? String)
        let kept = try decoded(trimmed, in: cli)
        let first = Int((start * 48000).rounded()) * source.channels
        #expect(kept.count == original.count - first, "the trim keeps the frames from \(start) s to the end")
        let expected = original[first...]
        let largestDifference = zip(kept, expected).map { abs(Double($0) - Double($1)) / Double(Int32.max) }.max() ?? 0
        // The decoder settles on the whole stream's samples within moments of the cut (OpusStreamCopy).
        #expect(largestDifference < 0.003, "the trimmed memo decodes to the source's samples, within −50 dB")
    }
}
