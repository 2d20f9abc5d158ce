import Foundation
import TestSupport
import Testing

/// Every recording format from a device with a real clock: PulseAudio's monitor of a sink that plays a sine (the server's
/// own `module-sine`, so that a busy machine cannot starve it), mono and stereo, and through `--enhance`. The memo
/// lasts exactly what `--duration` asks, another tool reads it back, and it holds the sine at the level it was played.
/// And every format as a person records on a terminal, with keys: enhanced, paused and resumed, with markers, long and
/// under a period.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct PulseRecordingFormatTests {
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

    /// How long the recording of ``aPausedMarkedEnhancedRecordingKeepsItsLengthAndMarkersInEveryFormat(format:length:)``
    /// runs: long, about two seconds of audio around a half-second pause; or a stretch under a period between two
    /// pauses (the meter's periods are 125 ms), a marker in it.
    enum Length: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case long, underAPeriod
        var testDescription: String { rawValue }
    }

    /// The markers of the memo's `file` as another tool reads them, in seconds: ffprobe's chapters of an Opus, FLAC or
    /// M4A file (without the one an MP4 file starts with at 0), or a WAV file's cue points read from its chunks; a CAF file
    /// keeps none (the store keeps them beside it).
    private func markerTimes(of file: String) throws -> [Double]? {
        if file.hasSuffix(".caf") { return nil }
        if file.hasSuffix(".wav") { return try WAVCues.frames(of: file).map { Double($0) / 48000 } }
        return try FFprobe.chapters(of: file).map(\.start).filter { $0 > 0 }
    }

    @Test(arguments: Format.all, Length.allCases)
    func aPausedMarkedEnhancedRecordingKeepsItsLengthAndMarkersInEveryFormat(format: Format, length: Length) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let sine = try server.playSine(frequency: 440, amplitude: 0.25)
            defer { sine.stop() }
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Keys", "--enhance"] + format.arguments,
                environment: cli.environment.merging(try server.environment) { $1 })
            func last() -> (head: String, elapsed: Double)? {
                TerminalDisplayTests.frames(record.screen, height: 2).last.flatMap { MarkedRecordingTests.recording($0, title: "Keys") }
            }
            /// Waits until the status line's head is `head`, or (nil) says it records, its time at `elapsed` or past.
            /// (A marker's head stands for 1.5 s whatever the recording does, so times are waited for under either.)
            func wait(for head: String? = nil, from elapsed: Double = 0) {
                let done = { (status: (head: String, elapsed: Double)) in
                    status.elapsed >= elapsed && (head.map { status.head == $0 } ?? (status.head != "⏸ PAUSED"))
                }
                #expect(record.read(until: { _ in last().map(done) ?? false }, timeout: 10),
                        "\(head ?? "recording") at \(elapsed) s: \(record.screen.suffix(300))")
            }
            switch length {
            case .long:
                wait(from: 0.5)
                record.type(" ")
                wait(for: "⏸ PAUSED")
                try await Task.sleep(for: .milliseconds(500))
                record.type(" ")
                wait(for: "● REC")
                wait(from: 0.8)
                record.type("m")
                wait(for: "▼ MARKER 1")
                wait(from: 1.3)
                record.type("m")
                wait(for: "▼ MARKER 2")
                wait(from: 2)
            case .underAPeriod:
                // Paused, then a stretch shorter than a period between two pauses, a marker in it.
                wait(from: 0.3)
                record.type(" ")
                wait(for: "⏸ PAUSED")
                record.type(" m ")
                wait(for: "▼ MARKER 1")
                try await Task.sleep(for: .milliseconds(300))
            }
            record.type("q")
            #expect(record.waitForExit(timeout: 10) == 0, "\(record.screen.suffix(300))")

            let memo = try cli.json(try cli.run("info", "Keys", "--json"))
            let file = try #require(memo["file"] as? String)
            let duration = try #require(memo["duration"] as? Double)
            let markers = try #require(memo["markers"] as? [[String: Any]]).compactMap { $0["time"] as? Double }
            // Another tool reads the memo's very length: what was recorded, the pause left out.
            let frames = format.name == "m4a" ? try FFprobe.codec(of: file).frames : try Sox.info(decoded(file, in: cli)).frames
            #expect(frames == Int((duration * 48000).rounded()), "\(frames) frames read, the memo says \(duration) s")
            switch length {
            case .long:
                // 0.5 s of pause not counted: the status line (rounded to a tenth) stood at 2 s or a little more at q.
                #expect(duration >= 1.95 && duration < 2.4, "\(duration) s")
                #expect(markers.count == 2 && markers[0] >= 0.75 && markers[0] < 1.3 && markers[1] >= 1.25 && markers[1] < 2,
                        "\(markers)")
                // The tone is there, through the enhancement.
                #expect(try #require(memo["peakDBFS"] as? [Double]).allSatisfy { $0 > -30 }, "\(memo)")
            case .underAPeriod:
                // The 0.3 s or so before the first pause, and the stretch after it, the marker in it: under a period.
                #expect(duration >= 0.25 && duration < 1, "\(duration) s")
                #expect(markers.count == 1 && markers[0] >= 0.25 && markers[0] <= duration && duration - markers[0] < 0.125,
                        "\(markers) in \(duration) s")
            }
            if let inFile = try markerTimes(of: file) {
                #expect(inFile.count == markers.count && zip(inFile, markers).allSatisfy { abs($0 - $1) < 0.001 },
                        "the file's \(inFile), the memo's \(markers)")
            }
        }
    }
}
