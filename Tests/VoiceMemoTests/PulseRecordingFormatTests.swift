import Foundation
import TestSupport
import Testing

/// Every recording format from a device with a real clock: PulseAudio's monitor of a sink that plays a sine (the server's
/// own `module-sine`, so that a busy machine cannot starve it), mono and stereo, and through `--enhance`. The memo
/// lasts exactly what `--duration` asks, another tool reads it back, and it holds the sine at the level it was played.
@Suite(.timeLimit(.minutes(2)), .tags(.clocked)) struct PulseRecordingFormatTests {
    struct Format: CustomTestStringConvertible, Sendable {
        var name: String
        var bitDepth: Int?
        var testDescription: String { bitDepth.map { "\(name) \($0)-bit" } ?? name }
        var arguments: [String] { ["--format", name] + (bitDepth.map { ["--bit-depth", "\($0)"] } ?? []) }

        static let all = [
            Format(name: "wav", bitDepth: 16), Format(name: "caf", bitDepth: 24), Format(name: "wav", bitDepth: 32),
            Format(name: "flac", bitDepth: 24), Format(name: "opus"), Format(name: "m4a"),
        ]
    }

    /// The memo's file decoded to WAV by another tool: sox for PCM and FLAC, opusdec for Opus, ffmpeg for M4A.
    private func decoded(_ file: String, in cli: CLI) throws -> String {
        let wav = cli.scratch.path("decoded-\(UUID().uuidString.prefix(8)).wav")
        if file.hasSuffix(".opus") {
            try Tool.output("opusdec", ["--quiet", "--rate", "48000", file, wav])
        } else {
            try Tool.output("ffmpeg", ["-v", "error", "-i", file, "-c:a", "pcm_f32le", wav])
        }
        return wav
    }

    @Test(arguments: Format.all, [1, 2])
    func aRecordingFromPulseAudioLastsItsDurationAndHoldsTheSineAtItsLevel(format: Format, channels: Int) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let sine = try server.playSine(frequency: 440, amplitude: 0.5)
            defer { sine.stop() }
            let result = try cli.run(
                ["record", "--device", "pulse", "--duration", "1", "--channels", "\(channels)", "--json"] + format.arguments,
                with: try server.environment)
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            let memo = try cli.json(result)
            #expect(memo["duration"] as? Double == 1 && memo["channels"] as? Int == channels, "\(memo)")
            let wav = try decoded(try #require(memo["file"] as? String), in: cli)
            let frames = format.name == "m4a" ? try FFprobe.codec(of: try #require(memo["file"] as? String)).frames : try Sox.info(wav).frames
            #expect(frames == 48000, "another tool reads \(frames) frames")
            // A sine with peaks at half of full scale: -9 dBFS RMS, past the first 0.2 s (a fresh stream's start).
            let tail = cli.scratch.path("tail.wav")
            try Tool.output("sox", [wav, tail, "trim", "0.2"])
            let levels = try Sox.levels(of: tail, channels: channels)
            #expect(levels.rms.allSatisfy { abs($0 - -9.03) < 1 }, "\(levels.rms) dBFS")
        }
    }

    @Test func anEnhancedRecordingFromPulseAudioKeepsItsLength() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let sine = try server.playSine(frequency: 440, amplitude: 0.25)
            defer { sine.stop() }
            let result = try cli.run(
                ["record", "--device", "pulse", "--duration", "1.5", "--enhance", "--format", "opus", "--json"],
                with: try server.environment)
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            let memo = try cli.json(result)
            #expect(memo["duration"] as? Double == 1.5, "\(memo)")
            let wav = try decoded(try #require(memo["file"] as? String), in: cli)
            #expect(try Sox.info(wav).frames == 72000)
            #expect(try #require(memo["peakDBFS"] as? [Double]).allSatisfy { $0 > -30 }, "the tone is kept: \(memo)")
        }
    }
}
