import AudioIO
import Foundation
import TestSupport
import Testing

/// Markers and tags through the edits of the store: a trim moves the markers with the audio (file and index), restore
/// brings the old ones back, rename keeps them, export keeps them normalized too; an M4A memo has its loudness, measured
/// again when it is trimmed. Read back by the library, ffprobe and `info`.
@Suite struct MarkerEditTests {
    /// Imports `seconds` of a 440 Hz tone at 48 kHz, artist Ann, album Talks, comment "At home", with a marker at each of `markers` (seconds
    /// and name): an M4A with those chapters, made by ffmpeg, imported as `format` (`m4a`: as it is). Returns its
    /// `--json`.
    static func importMarked(
        _ cli: CLI, title: String, seconds: Double, markers: [(time: Double, name: String)], format: String
    ) throws -> [String: Any] {
        let stem = cli.scratch.path(String(UUID().uuidString.prefix(8)))
        try Sox.synth(to: stem + ".wav", rate: 48000, channels: 1, seconds: seconds, "sine 440")
        var chapters = ";FFMETADATA1\ntitle=\(title)\nartist=Ann\nalbum=Talks\ncomment=At home\n"
        for (number, marker) in markers.enumerated() {
            let end = number + 1 < markers.count ? markers[number + 1].time : seconds
            chapters += "[CHAPTER]\nTIMEBASE=1/48000\nSTART=\(Int(marker.time * 48000))\nEND=\(Int(end * 48000))\ntitle=\(marker.name)\n"
        }
        try chapters.write(toFile: stem + ".txt", atomically: true, encoding: .utf8)
        try Tool.output("ffmpeg", ["-v", "error", "-i", stem + ".wav", "-i", stem + ".txt", "-map_metadata", "1", "-map_chapters", "1",
                                   "-c:a", "aac", stem + ".m4a"])
        return try cli.json(try cli.run(["import", stem + ".m4a", "--json"] + (format == "m4a" ? [] : ["--format", format]), with: [:]))
    }

    /// The `frame` and `name` of each marker of `memo` (a `--json`).
    static func markers(_ memo: [String: Any]) -> [AudioMarker] {
        (memo["markers"] as? [[String: Any]] ?? []).map { AudioMarker(framePosition: Int64($0["frame"] as? Int ?? -1), name: $0["name"] as? String) }
    }

    static let spoken: [(time: Double, name: String)] = [(0, "Start"), (0.5, "Intro"), (1.5, "Middle"), (3.5, "Late")]
    static let spokenFrames = [AudioMarker(framePosition: 0, name: "Start"), AudioMarker(framePosition: 24000, name: "Intro"),
                               AudioMarker(framePosition: 72000, name: "Middle"), AudioMarker(framePosition: 168_000, name: "Late")]

    @Test(arguments: ["wav", "caf", "opus", "m4a"])
    func aTrimMovesTheMarkersInTheFileAndTheIndexAndRestoreBringsThemBack(format: String) throws {
        let cli = try CLI()
        let imported = try Self.importMarked(cli, title: "Talk", seconds: 4, markers: Self.spoken, format: format)
        let id = try #require(imported["id"] as? String)
        let file = URL(fileURLWithPath: try #require(imported["file"] as? String))
        #expect(Self.markers(imported) == Self.spokenFrames)

        let trim = try cli.run("trim", id, "--start", "1", "--end", "3")
        #expect(trim.status == 0, "\(trim.standardError)")
        // Middle, at 1.5 s, is now at 0.5 s; Start and Intro were before the cut, Late after it.
        let moved = [AudioMarker(framePosition: 24000, name: "Middle")]
        let trimmed = try cli.json(try cli.run("info", id, "--json"))
        #expect(Self.markers(trimmed) == moved && trimmed["artist"] as? String == "Ann" && trimmed["album"] as? String == "Talks")
        #expect(trimmed["comment"] as? String == "At home")
        if format != "caf" {
            let read = try AudioFile(forReading: file)
            #expect(read.metadata.markers == moved && read.metadata.artist == "Ann", "the file's own")
        }
        if format == "opus" {
            #expect(try FFprobe.chapters(of: file.path).map(\.title) == ["Middle"])
        }
        if format == "m4a" {
            // QuickTime's chapters begin at the start: an untitled one holds the place before the marker.
            let chapters = try FFprobe.chapters(of: file.path)
            #expect(chapters.map(\.title) == ["", "Middle"] && chapters.map(\.start) == [0, 0.5], "\(chapters)")
            let tags = try FFprobe.tags(of: file.path).tags
            #expect(tags["title"] == "Talk" && tags["artist"] == "Ann" && tags["album"] == "Talks" && tags["comment"] == "At home", "\(tags)")
            #expect(tags["date"] == imported["createdAt"] as? String, "\(tags)")
        }
        // Under the fields, over the waveform.
        #expect(try cli.lines("info", id).prefix { $0 != "Waveform:" }.suffix(2) == ["Markers:        1", "  1  0:00.5  Middle"])
        // An index rebuilt from the files finds them too (a CAF memo's beside its file).
        for name in ["memos.json", "memos.journal", ".memos.cache"] {
            try? FileManager.default.removeItem(at: cli.storeState.appendingPathComponent(name))
        }
        #expect(Self.markers(try cli.json(try cli.run("info", id, "--json"))) == moved, "rebuilt")

        #expect(try cli.run("restore", id).status == 0)
        #expect(Self.markers(try cli.json(try cli.run("info", id, "--json"))) == Self.spokenFrames)
        if format != "caf" { #expect(try AudioFile(forReading: file).metadata.markers == Self.spokenFrames) }
        for name in ["memos.json", "memos.journal", ".memos.cache"] {
            try? FileManager.default.removeItem(at: cli.storeState.appendingPathComponent(name))
        }
        #expect(Self.markers(try cli.json(try cli.run("info", id, "--json"))) == Self.spokenFrames, "rebuilt after the restore")
    }

    @Test func anM4AMemoHasItsLoudnessMeasuredAtImportAndAgainWhenTrimmed() throws {
        let cli = try CLI()
        let imported = try Self.importMarked(cli, title: "Phone", seconds: 4, markers: Self.spoken, format: "m4a")
        let id = try #require(imported["id"] as? String)
        let file = URL(fileURLWithPath: try #require(imported["file"] as? String))
        #expect(imported["format"] as? String == "aac")
        // Measured at import, as the library measures the file.
        let integrated = try #require((imported["loudness"] as? [String: Any])?["integrated"] as? Double)
        let measured = try AudioFile(forReading: file).measureLoudness()
        #expect(abs(integrated - measured.integrated) < 0.05, "\(integrated) \(measured)")
        #expect(try cli.lines("info", id).contains { $0.hasPrefix("Loudness:") && $0.contains(" LUFS, range ") })

        // A quiet second and a loud one: cut to the quiet one, the memo's loudness is what is left of it.
        let halves = cli.scratch.path("halves")
        try Sox.synth(to: halves + "-quiet.wav", rate: 48000, channels: 1, seconds: 1, "sine 440", volume: 0.05)
        try Sox.synth(to: halves + "-loud.wav", rate: 48000, channels: 1, seconds: 1, "sine 440", volume: 0.5)
        try Tool.output("sox", [halves + "-quiet.wav", halves + "-loud.wav", halves + ".wav"])
        try Tool.output("ffmpeg", ["-v", "error", "-i", halves + ".wav", "-c:a", "aac", halves + ".m4a"])
        let both = try cli.json(try cli.run(["import", halves + ".m4a", "--json"], with: [:]))
        let bothID = try #require(both["id"] as? String)
        let before = try #require((both["loudness"] as? [String: Any])?["integrated"] as? Double)
        #expect(try cli.run("trim", bothID, "--end", "0.9").status == 0)
        let trimmed = try cli.json(try cli.run("info", bothID, "--json"))
        let after = try #require((trimmed["loudness"] as? [String: Any])?["integrated"] as? Double)
        let cut = try AudioFile(forReading: URL(fileURLWithPath: try #require(trimmed["file"] as? String))).measureLoudness()
        #expect(abs(after - cut.integrated) < 0.05 && after < before - 10, "\(before) → \(after), measured \(cut)")
    }

    @Test(arguments: ["m4a", "opus"])
    func aRenameKeepsTheTagsAndMarkersInTheFileAndTheIndex(format: String) throws {
        let cli = try CLI()
        let imported = try Self.importMarked(cli, title: "Talk", seconds: 2, markers: Array(Self.spoken.prefix(3)), format: format)
        let id = try #require(imported["id"] as? String)
        let file = try #require(imported["file"] as? String)
        let packets = try FFprobe.packetHashes(of: file)
        #expect(try cli.run("rename", id, "Talk, retitled").status == 0)
        let renamed = try cli.json(try cli.run("info", id, "--json"))
        #expect(renamed["title"] as? String == "Talk, retitled" && renamed["artist"] as? String == "Ann" && renamed["album"] as? String == "Talks")
        #expect(renamed["comment"] as? String == "At home")
        #expect(Self.markers(renamed) == Array(Self.spokenFrames.prefix(3)))
        let tags = try FFprobe.tags(of: file).tags
        #expect(tags["title"] == "Talk, retitled" && tags["artist"] == "Ann" && tags["album"] == "Talks", "\(tags)")
        #expect(try AudioFile(forReading: URL(fileURLWithPath: file)).metadata.comment == "At home")
        #expect(try FFprobe.chapters(of: file).map(\.title) == ["Start", "Intro", "Middle"])
        #expect(try AudioFile(forReading: URL(fileURLWithPath: file)).metadata.markers == Array(Self.spokenFrames.prefix(3)))
        #expect(try FFprobe.packetHashes(of: file) == packets, "the audio packets as they were")
    }

    /// `export --normalize`: an Opus memo through its output gain, an M4A and a WAV one encoded anew; every one at the
    /// loudness asked for, with the markers where they were.
    @Test(arguments: [("opus", "out.opus"), ("m4a", "out.m4a"), ("wav", "out.opus"), ("m4a", "out.wav")])
    func exportNormalizedKeepsTheMarkers(format: String, target: String) throws {
        let cli = try CLI()
        let imported = try Self.importMarked(cli, title: "Talk", seconds: 4, markers: Self.spoken, format: format)
        let id = try #require(imported["id"] as? String)
        let path = cli.scratch.path(target)
        let export = try cli.run("export", id, path, "--normalize", "-20")
        #expect(export.status == 0, "\(export.standardError)")
        let read = try AudioFile(forReading: URL(fileURLWithPath: path))
        #expect(read.metadata.markers.map { $0.time(atSampleRate: read.sampleRate) } == [0, 0.5, 1.5, 3.5], "\(target)")
        #expect(read.metadata.markers.map(\.name) == ["Start", "Intro", "Middle", "Late"] && read.metadata.artist == "Ann")
        #expect(abs(try LoudnessCommandTests.ffmpeg(path).integrated + 20) < 0.5, "\(target)")
    }
}
