import AudioIO
import Foundation
import TestSupport
import Testing

/// Memos in M4A (AAC-LC) as a person makes them: recorded with `--format m4a`, imported from a phone's M4A, exported;
/// read back by ffprobe and ffmpeg.
@Suite struct M4ATests {
    /// What ffmpeg decodes `path` to: 16-bit samples.
    private func decoded(_ path: String, in cli: CLI) throws -> Data {
        let raw = cli.scratch.path("decoded-\(UUID().uuidString.prefix(8)).raw")
        try Tool.output("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", raw])
        return try Data(contentsOf: URL(fileURLWithPath: raw))
    }

    @Test func aRecordingInM4AIsAACLCExactToTheFrameWithItsTagsAndExportsAsItIs() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("mic.wav"), rate: 48000, channels: 1, seconds: 2, "sine 1000")
        let microphone = try ALSATestDevices.microphone(playing: cli.scratch.path("mic.wav"), format: .float32)
        let result = try cli.run(
            "record", "--device", microphone, "--duration", "1.5", "--format", "m4a", "--title", "Standup", "--artist", "Ann",
            "--album", "Team", "--comment", "the usual", "--json")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let memo = try cli.json(result)
        let file = try #require(memo["file"] as? String)
        #expect(memo["format"] as? String == "aac" && file.hasSuffix(".m4a") && memo["duration"] as? Double == 1.5)
        #expect(memo["artist"] as? String == "Ann" && memo["album"] as? String == "Team" && memo["comment"] as? String == "the usual")
        // Its loudness measured as it was recorded: what the library measures of the file, within what AAC changes.
        let integrated = try #require((memo["loudness"] as? [String: Any])?["integrated"] as? Double)
        #expect(abs(integrated - (try AudioFile(forReading: URL(fileURLWithPath: file)).measureLoudness().integrated)) < 0.2, "\(integrated)")
        let stream = try FFprobe.codec(of: file)
        #expect(stream.codec == "aac" && stream.profile == "LC" && stream.frames == 72000)
        let tags = try FFprobe.tags(of: file).tags
        #expect(tags["title"] == "Standup" && tags["artist"] == "Ann" && tags["album"] == "Team" && tags["comment"] == "the usual")
        #expect(tags["date"] == memo["createdAt"] as? String)
        let info = try cli.lines("info", "Standup")
        #expect(info.contains("Artist:         Ann") && info.contains("Format:         aac"), "\(info)")

        // To M4A: the very packets, new file around them; to WAV: decoded, the same length.
        #expect(try cli.run("export", "Standup", cli.scratch.path("copy.m4a")).status == 0)
        #expect(try FFprobe.codec(of: cli.scratch.path("copy.m4a")).frames == 72000)
        #expect(try decoded(cli.scratch.path("copy.m4a"), in: cli) == decoded(file, in: cli))
        #expect(try FFprobe.tags(of: cli.scratch.path("copy.m4a")).tags["artist"] == "Ann")
        #expect(try cli.run("export", "Standup", cli.scratch.path("out.wav")).status == 0)
        #expect(try Sox.info(cli.scratch.path("out.wav")).frames == 72000)
        // A rename goes into the file, its packets copied, not encoded again.
        let before = try decoded(file, in: cli)
        #expect(try cli.run("rename", "Standup", "Standup, Monday").status == 0)
        #expect(try FFprobe.tags(of: file).tags["title"] == "Standup, Monday" && decoded(file, in: cli) == before)
    }

    /// A phone's recording with chapters (ffmpeg makes it here): its AAC packets kept, its chapters the memo's markers,
    /// which every format with a place for them keeps on export, and which come back on import.
    @Test func aPhoneM4AIsKeptPacketForPacketAndItsChaptersBecomeMarkersThatExportKeeps() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("talk.wav"), rate: 44100, channels: 1, seconds: 3, "sine 440")
        try """
            ;FFMETADATA1
            title=Call with Bo
            artist=Bo
            [CHAPTER]
            TIMEBASE=1/44100
            START=0
            END=44100
            title=Hello
            [CHAPTER]
            TIMEBASE=1/44100
            START=44100
            END=132300
            title=Plans
            """.write(toFile: cli.scratch.path("chapters.txt"), atomically: true, encoding: .utf8)
        let phone = cli.scratch.path("phone.m4a")
        try Tool.output("ffmpeg", ["-v", "error", "-i", cli.scratch.path("talk.wav"), "-i", cli.scratch.path("chapters.txt"),
                                   "-map_metadata", "1", "-map_chapters", "1", "-c:a", "aac", phone])
        let imported = try cli.json(try cli.run("import", phone, "--json"))
        let file = try #require(imported["file"] as? String)
        #expect(imported["format"] as? String == "aac" && imported["title"] as? String == "Call with Bo" && imported["artist"] as? String == "Bo")
        #expect(try decoded(file, in: cli) == decoded(phone, in: cli), "the phone's packets, decoded alike")
        let markers = try #require(imported["markers"] as? [[String: Any]])
        #expect(markers.map { $0["frame"] as? Int } == [0, 44100] && markers.map { $0["name"] as? String } == ["Hello", "Plans"])
        #expect(markers.map { $0["time"] as? Double } == [0, 1])
        let id = try #require(imported["id"] as? String)

        // Exported where the format keeps markers: WAV cue points, Opus comments, M4A chapters.
        for name in ["out.wav", "out.opus", "out.m4a"] {
            #expect(try cli.run("export", id, cli.scratch.path(name)).status == 0, "\(name)")
            let read = try AudioFile(forReading: cli.scratch.file(name))
            #expect(read.metadata.markers.map { $0.time(atSampleRate: read.sampleRate) } == [0, 1], "\(name)")
            #expect(read.metadata.markers.map(\.name) == ["Hello", "Plans"], "\(name)")
        }
        #expect(try FFprobe.chapters(of: cli.scratch.path("out.opus")).map(\.title) == ["Hello", "Plans"])
        // And back: a WAV with cue points imports with its markers.
        let again = try cli.json(try cli.run("import", cli.scratch.path("out.wav"), "--json"))
        #expect((again["markers"] as? [[String: Any]])?.map { $0["frame"] as? Int } == [0, 44100])
        let lines = try cli.lines("info", try #require(again["id"] as? String)).prefix { $0 != "Waveform:" }
        #expect(lines.suffix(3) == ["Markers:        2", "  1  0:00.0  Hello", "  2  0:01.0  Plans"], "\(lines)")
    }

    /// `info`, `list` and `presets` call AAC memos "aac": every --format takes that name, and the file's extension, m4a,
    /// as the same thing; a format it does not know is refused with the one name among the choices.
    @Test func aacIsTheFormatsNameEverywhereAndM4AIsTakenForIt() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        for name in ["aac", "m4a"] {
            let imported = try cli.run("import", cli.scratch.path("tone.wav"), "--title", name, "--format", name, "--json")
            #expect(imported.status == 0, "\(imported.standardError)")
            #expect(try cli.json(imported)["format"] as? String == "aac")
            let out = cli.scratch.path("\(name).out")
            let exported = try cli.run("export", name, out, "--format", name)
            #expect(exported.status == 0, "\(exported.standardError)")
            #expect(try FFprobe.codec(of: out).codec == "aac")
        }
        #expect(try cli.lines("list").dropFirst().allSatisfy { $0.contains(" aac 48 kHz mono ") })
        #expect(try cli.lines("presets").contains { $0.hasPrefix("m4a ") && $0.contains(" aac 48 kHz mono 64 kb/s ") })
        for command in [["import", cli.scratch.path("tone.wav")], ["record", "--duration", "1"], ["export", "aac", "x"]] {
            let refused = try cli.run(command + ["--format", "mp4"], with: [:])
            let choices = String(refused.standardError.prefix { $0 != "H" }.drop { $0 != "P" })
            #expect(refused.status == 2 && choices.hasPrefix("Please provide one of") && choices.contains("aac") && !choices.contains("m4a"),
                    "\(refused.standardError)")
        }
    }
}
