import Foundation
import TestSupport
import Testing

/// Files other tools made — AAC and ALAC in M4A and MP3 from ffmpeg (LAME), FLAC, Vorbis, CAF and WAV from sox, RF64
/// from ffmpeg — at lengths that are no whole number of codec frames, mono and stereo, 16-bit, 24-bit and float: each
/// imports at the length the other tool decodes (to the sample where it is lossless), plays to a file-backed
/// speaker at that length, exports, renames, trims and normalizes.
@Suite(.timeLimit(.minutes(3))) struct ForeignFileTests {
    /// One file a user might bring: what makes it from a WAV of sox's, and how it is checked.
    struct Source: CustomTestStringConvertible, Sendable {
        let name: String
        let fileName: String
        let rate: Int
        let channels: Int
        let seconds: Double
        /// Bits of the WAV sox makes first (32: float).
        var bits = 16
        /// The tool and its arguments, with `IN` and `OUT` for the files.
        let command: [String]
        /// Whether the file decodes to exactly the WAV it was made from.
        let isLossless: Bool

        var testDescription: String { "\(name), \(seconds) s, \(channels) channel(s), \(rate) Hz" }
    }

    static let sources: [Source] = [
        Source(name: "AAC in M4A from ffmpeg", fileName: "phone.m4a", rate: 44100, channels: 2, seconds: 2.2227,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "aac", "-b:a", "96k", "OUT"], isLossless: false),
        Source(name: "AAC in M4A from ffmpeg", fileName: "short.m4a", rate: 48000, channels: 1, seconds: 0.3071,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "aac", "-b:a", "64k", "OUT"], isLossless: false),
        Source(name: "ALAC in M4A from ffmpeg", fileName: "lossless.m4a", rate: 44100, channels: 2, seconds: 1.9001,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "alac", "OUT"], isLossless: true),
        Source(name: "MP3 from LAME", fileName: "talk.mp3", rate: 44100, channels: 2, seconds: 2.2227,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "libmp3lame", "-q:a", "4", "OUT"], isLossless: false),
        Source(name: "MP3 from LAME", fileName: "mono.mp3", rate: 22050, channels: 1, seconds: 1.3333,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "libmp3lame", "-b:a", "48k", "OUT"], isLossless: false),
        Source(name: "FLAC from sox", fileName: "talk.flac", rate: 48000, channels: 1, seconds: 3.0007,
               command: ["sox", "IN", "OUT"], isLossless: true),
        Source(name: "24-bit FLAC from ffmpeg", fileName: "deep.flac", rate: 96000, channels: 2, seconds: 1.2345, bits: 24,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "flac", "-sample_fmt", "s32", "OUT"], isLossless: true),
        Source(name: "Vorbis from ffmpeg", fileName: "talk.ogg", rate: 44100, channels: 2, seconds: 2.0101,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "libvorbis", "-q:a", "3", "OUT"], isLossless: false),
        Source(name: "Vorbis from sox", fileName: "sox.ogg", rate: 16000, channels: 1, seconds: 0.7777,
               command: ["sox", "IN", "OUT"], isLossless: false),
        Source(name: "float CAF from sox", fileName: "float.caf", rate: 48000, channels: 2, seconds: 1.1111, bits: 32,
               command: ["sox", "IN", "OUT"], isLossless: true),
        Source(name: "24-bit WAV from sox", fileName: "deep.wav", rate: 48000, channels: 1, seconds: 0.0421, bits: 24,
               command: ["sox", "IN", "OUT"], isLossless: true),
        Source(name: "RF64 from ffmpeg", fileName: "long.wav", rate: 48000, channels: 2, seconds: 1.5001,
               command: ["ffmpeg", "-v", "error", "-i", "IN", "-c:a", "pcm_s24le", "-rf64", "always", "OUT"], isLossless: true),
    ]

    /// Makes `source` from a WAV of sox's, which it returns beside it.
    private func make(_ source: Source, in cli: CLI) throws -> (file: String, wav: String) {
        let wav = cli.scratch.path("source.wav")
        try Sox.synth(to: wav, rate: source.rate, channels: source.channels, bits: source.bits, seconds: source.seconds,
                      "pinknoise", volume: 0.2)
        let file = cli.scratch.path(source.fileName)
        let arguments = source.command.dropFirst().map { $0 == "IN" ? wav : $0 == "OUT" ? file : $0 }
        try Tool.output(source.command[0], Array(arguments))
        return (file, wav)
    }

    /// The frames another tool decodes `file` to: an M4A's own length (its edit list, as ffprobe reads it), what
    /// ffmpeg decodes of an MP3 (LAME's gapless header), and what sox decodes of the rest (an Ogg Vorbis stream's last
    /// granule position, which ffmpeg's decoder can overrun).
    private func referenceFrames(of file: String, channels: Int, in cli: CLI) throws -> Int {
        if file.hasSuffix(".m4a") {
            let text = try Tool.output("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts",
                                                   "-of", "csv=p=0", file])
            return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        if file.hasSuffix(".mp3") { return try FFmpeg.samples(of: file, in: cli.scratch).count / channels }
        return try Sox.info(file).frames
    }

    /// The integrated loudness ffmpeg's `ebur128` filter reads in `file`, in LUFS.
    private func integratedLoudness(of file: String) throws -> Double {
        let result = try Tool.run("ffmpeg", ["-nostats", "-i", file, "-af", "ebur128=framelog=verbose", "-f", "null", "-"])
        let line = try #require(result.standardError.split(separator: "\n").last { $0.contains("I:") && $0.contains("LUFS") })
        return try #require(Double(line.split(separator: " ").dropFirst().first { Double($0) != nil } ?? ""))
    }

    @Test(arguments: sources)
    func importPlayExportRenameTrimAndNormalizeKeepWhatTheOtherToolDecodes(_ source: Source) throws {
        let cli = try CLI()
        let (file, wav) = try make(source, in: cli)
        let frames = try referenceFrames(of: file, channels: source.channels, in: cli)
        #expect(abs(Double(frames) - source.seconds * Double(source.rate)) < 0.01 * Double(source.rate), "\(frames) frames")

        let imported = try cli.run("import", file, "--title", "found", "--json")
        try #require(imported.status == 0, "\(imported.standardError)")
        let memo = try cli.json(imported)
        let duration = try #require(memo["duration"] as? Double)
        #expect(memo["sampleRate"] as? Int == source.rate && memo["channels"] as? Int == source.channels, "\(memo)")
        #expect(abs(duration * Double(source.rate) - Double(frames)) < 0.01, "the memo lasts \(duration) s")

        let exported = cli.scratch.path("out.wav")
        let export = try cli.run("export", "found", exported, "--format", "wav")
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try Sox.info(exported).frames == frames, "the export holds the other tool's frames")
        if source.isLossless {
            let original = try FFmpeg.samples(of: wav, in: cli.scratch)
            #expect(try FFmpeg.samples(of: exported, in: cli.scratch) == original, "lossless: sample for sample")
        }

        // Played to a file-backed speaker (32-bit stereo at 48 kHz, what the engine negotiates): every frame at the
        // device's rate, and not one more.
        let speaker = cli.scratch.path("speaker.raw")
        let play = try cli.run("play", "found", "--device", "file:'\(speaker)',raw", "--no-meter")
        #expect(play.status == 0, "\(play.standardError)")
        let played = try #require(try FileManager.default.attributesOfItem(atPath: speaker)[.size] as? Int) / 8
        let atDeviceRate = Double(frames) * 48000 / Double(source.rate)
        #expect(abs(Double(played) - atDeviceRate) <= 1, "the speaker got \(played) frames for \(atDeviceRate)")

        #expect(try cli.run("rename", "found", "found again").status == 0)
        let renamed = cli.scratch.path("renamed.flac")
        #expect(try cli.run("export", "found again", renamed).status == 0)
        #expect(try FFprobe.tags(of: renamed).tags["title"] == "found again")
        #expect(try Sox.info(renamed).frames == frames)

        let normalized = cli.scratch.path("normalized.wav")
        let normalize = try cli.run("export", "found again", normalized, "--normalize", "-16")
        #expect(normalize.status == 0, "\(normalize.standardError)")
        #expect(try Sox.info(normalized).frames == frames, "normalizing keeps every frame")

        guard source.seconds >= 1 else { return }
        let heard = try integratedLoudness(of: normalized)
        let info = try cli.run("info", "found again", "--json").standardOutput
        #expect(abs(heard + 16) <= 1, "ffmpeg's ebur128 reads the export at \(heard) LUFS, not -16; \(normalize.standardOutput) \(info)")
        let trim = try cli.run("trim", "found again", "--start", "0.25", "--end", "0.75")
        #expect(trim.status == 0, "\(trim.standardError)")
        let trimmed = try cli.json(cli.run("info", "found again", "--json"))
        #expect(trimmed["duration"] as? Double == 0.5, "\(trimmed)")
    }
}
