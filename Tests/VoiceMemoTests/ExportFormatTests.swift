import Foundation
import TestSupport
import Testing

/// `export` writes every format its extension names, with the memo's title and date as tags, to a file or to
/// standard output; every file is read back by other tools (sox, ffprobe, opusinfo, opusdec).
@Suite struct ExportFormatTests {
    /// A format as a person asks for it, and what ffprobe must find in the file.
    struct Case: CustomTestStringConvertible, Sendable {
        let fileExtension: String
        let container: String
        let codec: String
        /// The tag that holds the date, and how much of the date it holds (MP3's ID3 keeps the year).
        let dateTag: String
        let datePrefix: Int
        var testDescription: String { fileExtension }
    }

    static let cases = [
        Case(fileExtension: "wav", container: "wav", codec: "pcm_s16le", dateTag: "date", datePrefix: 20),
        Case(fileExtension: "caf", container: "caf", codec: "pcm_s16be", dateTag: "date", datePrefix: 20),
        Case(fileExtension: "opus", container: "ogg", codec: "opus", dateTag: "date", datePrefix: 20),
        Case(fileExtension: "flac", container: "flac", codec: "flac", dateTag: "date", datePrefix: 20),
        Case(fileExtension: "ogg", container: "ogg", codec: "vorbis", dateTag: "date", datePrefix: 20),
        Case(fileExtension: "mp3", container: "mp3", codec: "mp3", dateTag: "date", datePrefix: 4),
        Case(fileExtension: "aiff", container: "aiff", codec: "pcm_s16be", dateTag: "comment", datePrefix: 20),
    ]

    /// A one-second stereo memo with a title that is not ASCII; returns its id and creation date as `info --json` says.
    private func importMemo(_ cli: CLI) throws -> (id: String, createdAt: String) {
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 1, "sine 440 sine 660")
        let memo = try cli.json(cli.run("import", source, "--title", "Grüße, Standup", "--json"))
        return (try #require(memo["id"] as? String), try #require(memo["createdAt"] as? String))
    }

    /// The frames of an exported file as another tool decodes them: sox for most, opusdec for Opus (sox has no Opus).
    private func frames(of path: String, in cli: CLI) throws -> Int {
        guard path.hasSuffix(".opus") else { return try Sox.info(path).frames }
        let decoded = cli.scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", path, decoded])
        return try Sox.info(decoded).frames
    }

    @Test(arguments: cases)
    func everyFormatIsReadBackByAnotherToolWithItsLengthAndTags(_ format: Case) throws {
        let cli = try CLI()
        let (id, createdAt) = try importMemo(cli)
        let target = cli.scratch.path("out.\(format.fileExtension)")
        let export = try cli.run("export", id, target)
        #expect(export.status == 0 && export.standardError.isEmpty, "\(export.standardError)")
        let probe = try FFprobe.tags(of: target)
        #expect(probe.container == format.container && probe.codec == format.codec, "\(probe)")
        #expect(probe.tags["title"] == "Grüße, Standup", "\(probe.tags)")
        #expect(probe.tags[format.dateTag] == String(createdAt.prefix(format.datePrefix)), "\(probe.tags) for \(createdAt)")
        let frames = try frames(of: target, in: cli)
        // An MP3 encoder adds its delay and pads the last frame of 1152 samples.
        #expect(format.codec == "mp3" ? (48000...(48000 + 2 * 1152)).contains(frames) : frames == 48000, "\(frames) frames")
        let audio = try FFprobe.audio(of: target)
        #expect(audio.rate == 48000 && audio.channels == 2)
        if format.codec == "opus" {
            let info = try Tool.output("opusinfo", [target])
            #expect(info.contains("TITLE=Grüße, Standup") && info.contains("Channels: 2"), "\(info)")
        }
    }

    @Test func flacKeepsTheSourcesDepthAndEverySample() throws {
        let cli = try CLI()
        for bits in [16, 24] {
            let source = cli.scratch.path("in\(bits).wav")
            try Sox.synth(to: source, rate: 44100, channels: 2, bits: bits, seconds: 0.5, "whitenoise")
            let id = try #require(try cli.json(cli.run("import", source, "--json"))["id"] as? String)
            let target = cli.scratch.path("out\(bits).flac")
            #expect(try cli.run("export", id, target).status == 0)
            #expect(try Sox.info(target).bits == bits)
            #expect(try Sox.samples(of: target) == Sox.samples(of: source), "\(bits)-bit FLAC is lossless")
        }
    }

    /// libsndfile passes Vorbis channels through in the order it gets them; Vorbis has an order of its own for 3 to 8
    /// channels (as Opus): each channel, at a level of its own, must come back where it was.
    @Test func aSixChannelMemoExportsToVorbisWithEachChannelInItsPlace() throws {
        let cli = try CLI()
        let source = try cli.importSixChannelSurround(title: "Surround")
        let vorbis = cli.scratch.path("surround.ogg")
        #expect(try cli.run("export", "Surround", vorbis).status == 0)
        let decoded = cli.scratch.path("decoded.wav")
        try Tool.output("ffmpeg", ["-v", "error", "-i", vorbis, decoded])
        let expected = try Sox.levels(of: source, channels: 6).rms
        let levels = try Sox.levels(of: decoded, channels: 6).rms
        // The channels' levels are 0.9 dB and more apart: a channel out of place is off by that much. The LFE (fourth,
        // at 60 Hz) is coded for its lowest frequencies only, and comes back within 2 dB.
        #expect(zip(levels, expected).enumerated().allSatisfy { abs($1.0 - $1.1) < ($0 == 3 ? 2 : 0.3) }, "ffmpeg: \(levels) for \(expected)")
    }

    @Test func theFormatFlagWinsOverTheExtension() throws {
        let cli = try CLI()
        let (id, _) = try importMemo(cli)
        #expect(try cli.run("export", id, cli.scratch.path("out.wav"), "--format", "flac").status == 0)
        #expect(try FFprobe.tags(of: cli.scratch.path("out.wav")).container == "flac")
    }

    @Test func mp3TakesTwoChannelsAtARateItCanEncode() throws {
        let cli = try CLI()
        let source = cli.scratch.path("surround.wav")
        try Sox.synth(to: source, rate: 96000, channels: 6, seconds: 0.5, Array(repeating: "sine 440", count: 6).joined(separator: " "))
        let id = try #require(try cli.json(cli.run("import", source, "--json"))["id"] as? String)
        let export = try cli.run("export", id, cli.scratch.path("out.mp3"))
        #expect(export.status == 0, "\(export.standardError)")
        let audio = try FFprobe.audio(of: cli.scratch.path("out.mp3"))
        #expect(audio.rate == 48000 && audio.channels == 2)
        let refused = try cli.run("export", id, cli.scratch.path("odd.mp3"), "--sample-rate", "96000")
        #expect(refused.status == 2 && refused.standardError.hasPrefix("voicememo: MP3 takes 8000, 11025"), "\(refused.standardError)")
    }

    // MARK: Standard output

    /// Runs `voicememo arguments…` in bash with its standard output into `redirection` (`> FILE`, `| head -c 1`);
    /// returns voicememo's own status and its standard error.
    /// Runs `voicememo arguments` in bash with `redirection`, its temporary files in the test's own `tmp` directory.
    private func runInShell(_ cli: CLI, _ arguments: [String], _ redirection: String) throws -> (status: Int32, standardError: String) {
        var environment = cli.environment
        try FileManager.default.createDirectory(atPath: cli.scratch.path("tmp"), withIntermediateDirectories: true)
        environment["TMPDIR"] = cli.scratch.path("tmp")
        environment["VOICEMEMO"] = CLI.binary
        let errors = cli.scratch.path("errors-\(UUID().uuidString)")
        environment["ERRORS"] = errors
        let script = #""$VOICEMEMO" "$@" 2>"$ERRORS" "# + redirection + #"; exit "${PIPESTATUS[0]}""#
        let result = try Tool.run("bash", ["-c", script, "voicememo"] + arguments, environment: environment)
        return (result.status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    @Test(arguments: ["wav", "opus", "flac", "ogg", "mp3"])
    func aDashWritesTheFormatAskedForToStandardOutput(format: String) throws {
        let cli = try CLI()
        let (id, _) = try importMemo(cli)
        let target = cli.scratch.path("piped.\(format)")
        let run = try runInShell(cli, ["export", id, "-", "--format", format], "> '\(target)'")
        #expect(run.status == 0 && run.standardError.isEmpty, "\(run)")
        #expect(try FFprobe.tags(of: target).tags["title"] == "Grüße, Standup")
        let frames = try frames(of: target, in: cli)
        #expect(format == "mp3" ? (48000...(48000 + 2 * 1152)).contains(frames) : frames == 48000, "\(frames) frames")
        // In the test's own directory: other tests export at the same time.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.scratch.path("tmp")).isEmpty, "the temporary file is gone")
    }

    @Test func aDashWithoutAFormatIsAUsageError() throws {
        let cli = try CLI()
        let (id, _) = try importMemo(cli)
        let result = try cli.run("export", id, "-")
        #expect(result.status == 2)
        #expect(result.standardError == "voicememo: writing to standard output ('-') needs --format: wav, caf, opus, flac, ogg, mp3, aiff, aac\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func audioIsNeverPouredOntoATerminal() throws {
        let cli = try CLI()
        let (id, _) = try importMemo(cli)
        let terminal = try PseudoTerminal(CLI.binary, ["export", id, "-", "--format", "wav"], environment: cli.environment)
        #expect(terminal.waitForExit(timeout: 20) == 1)
        #expect(terminal.screen == "voicememo: cannot write the audio to standard output: standard output is a terminal; "
            + "redirect it to a file or a pipe ('> memo.wav')\r\n", "\(terminal.screen.debugDescription)")
    }

    @Test func aReaderThatGoesAwayEndsTheExportQuietly() throws {
        let cli = try CLI()
        let (id, _) = try importMemo(cli)
        // 192 KB of WAV: more than a pipe holds, so the writes after the reader has gone fail.
        let run = try runInShell(cli, ["export", id, "-", "--format", "wav"], "| head -c 1 >/dev/null")
        #expect(run.status == 0 && run.standardError.isEmpty, "\(run)")
    }
}
