import AudioIO
import Foundation
import TestSupport
import Testing

/// `voicememo trim`, `restore`, `undo` and `trash`: a cut to the sample without a second encoding, checked by the tools
/// that read the files (sox, opusdec, opusinfo, ffprobe, ffmpeg), and the memo as it was brought back byte for byte.
@Suite struct TrimTests {
    /// Imports speech (espeak-ng, 48 kHz) as a memo of `format`; returns its id and file.
    static func importSpeech(_ cli: CLI, format: String, title: String = "Speech") throws -> (id: String, file: String) {
        let spoken = cli.scratch.path("spoken.wav")
        try Tool.output("espeak-ng", ["-w", spoken, "A memo to cut. The part in the middle is the one to keep, and nothing in it may change."])
        let speech = cli.scratch.path("speech.wav")
        try Tool.output("sox", [spoken, "-r", "48000", "-b", format == "caf" ? "24" : "16", speech])
        let memo = try cli.json(cli.run("import", speech, "--title", title, "--format", format, "--json"))
        return (try #require(memo["id"] as? String), try #require(memo["file"] as? String))
    }

    /// The samples of `file` as an independent decoder gives them: opusdec (floats, no dither) for Opus, sox for PCM.
    static func decoded(_ file: String, in cli: CLI) throws -> [Int32] {
        guard file.hasSuffix(".opus") else { return try Sox.samples(of: file) }
        let wav = cli.scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", "--float", file, wav])
        return try Sox.samples(of: wav)
    }

    @Test(arguments: ["wav", "caf", "opus"])
    func aTrimDecodesToExactlyTheOriginalsSamplesBetweenTheCutsAndRestoreBringsBackTheFile(format: String) throws {
        let cli = try CLI()
        let (id, file) = try Self.importSpeech(cli, format: format)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let samples = try Self.decoded(file, in: cli)
        let packets = format == "opus" ? try FFprobe.packetHashes(of: file) : []
        let tenths = Int((try #require(try cli.json(cli.run("info", id, "--json"))["duration"] as? Double) * 10).rounded())
        let was = "\(tenths / 600):\(String(format: "%02d", tenths / 10 % 60)).\(tenths % 10)"

        let result = try cli.run("trim", String(id.prefix(6)), "--start", "1.25", "--end", "0:03.5")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput == "Trimmed \(id) “Speech” to 0:01.3–0:03.5: 0:02.3 (was \(was)); 'voicememo undo' brings the memo as it was back\n")
        let cut = try Self.decoded(file, in: cli)
        #expect(cut.count == 108_000)
        #expect(cut == Array(samples[60_000..<168_000]), "the samples between the cuts, exactly")
        let memo = try cli.json(cli.run("info", id, "--json"))
        let size = try Data(contentsOf: URL(fileURLWithPath: file)).count
        #expect(memo["duration"] as? Double == 2.25 && memo["sizeBytes"] as? Int == size)
        if format == "opus" {
            let kept = try FFprobe.packetHashes(of: file)
            let first = try #require(packets.firstIndex(of: kept[0]))
            #expect(Array(packets[first..<(first + kept.count)]) == kept, "every audio packet kept byte for byte")
            let info = try Tool.run("opusinfo", [file])
            #expect(info.status == 0 && !(info.standardOutput + info.standardError).contains("WARNING"), "\(info.standardOutput)")
            // Only the packets the decoder needs to settle before the cut (80 ms at least), not every one from the
            // start: the pre-skip stays small, and ffprobe, which counts it into the length, is off by that little.
            let preSkip = try #require(info.standardOutput.firstMatch(of: /Pre-skip: (\d+)/).flatMap { Int($0.1) })
            #expect(preSkip >= 3840 && preSkip < 24_000, "pre-skip \(preSkip) for a cut 1.25 s in")
            let probed = try Tool.output("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])
            let duration = try #require(Double(probed.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(abs(duration - 2.25 - Double(preSkip) / 48000) < 0.001, "ffprobe: \(duration) s")
        }

        let restore = try cli.run("restore", id)
        #expect(restore.status == 0 && restore.standardOutput.hasPrefix("Restored \(id) “Speech” as it was before the trim 0:01.3–0:03.5 of "))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "the original file, byte for byte")
        #expect(try cli.lines("trash") == ["The trash is empty."])
    }

    /// A memo recorded in M4A (AAC-LC, FFmpeg's encoder) is cut to the frame by its edit list, its AAC packets kept
    /// byte for byte from the one before the start's. It decodes to the original's samples but for the noise the
    /// encoder substituted for noisy bands (PNS), which a decoder draws anew wherever it starts, as after any seek:
    /// AudioFileExcerptTests shows a cut of an M4A without it decoding exactly.
    @Test func aRecordedM4AMemoIsCutToTheFrameKeepingItsAACPacketsAndRestoreBringsItBack() throws {
        let cli = try CLI()
        let spoken = cli.scratch.path("spoken.wav")
        try Tool.output("espeak-ng", ["-w", spoken, "A memo to cut. The part in the middle is the one to keep, and nothing in it may change."])
        try Tool.output("sox", [spoken, "-r", "48000", cli.scratch.path("speech.wav")])
        let microphone = try ALSATestDevices.microphone(playing: cli.scratch.path("speech.wav"), format: .float32)
        let recorded = try cli.run("record", "--device", microphone, "--duration", "4", "--format", "m4a", "--title", "Speech", "--json")
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let id = try #require(try cli.json(recorded)["id"] as? String)
        let file = try #require(try cli.json(recorded)["file"] as? String)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let packets = try FFprobe.packetHashes(of: file)
        let samples = try FFmpeg.samples(of: file, in: cli.scratch)

        let result = try cli.run("trim", id, "--start", "1.25", "--end", "0:03.5")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput == "Trimmed \(id) “Speech” to 0:01.3–0:03.5: 0:02.3 (was 0:04.0); 'voicememo undo' brings the memo as it was back\n")
        // Its length, to the frame, as ffprobe and our own reader read its edit list.
        let stream = try FFprobe.codec(of: file)
        #expect(stream.codec == "aac" && stream.profile == "LC" && stream.frames == 108_000)
        let memo = try cli.json(cli.run("info", id, "--json"))
        let size = try Data(contentsOf: URL(fileURLWithPath: file)).count
        #expect(memo["duration"] as? Double == 2.25 && memo["sizeBytes"] as? Int == size)
        let read = try AudioFile(forReading: URL(fileURLWithPath: file))
        #expect(read.frameCount == 108_000)
        // Packet i holds frames from (i − 1)·1024, after the encoder's priming: kept from 58 (the one before frame
        // 60,000's) to 165 (frame 167,999's), byte for byte.
        #expect(try FFprobe.packetHashes(of: file) == Array(packets[58...165]), "the AAC packets kept as they were")
        // ffmpeg skips what the edit list skips; FFmpeg 5.1 decodes the last packet whole (up to 1023 frames past the end).
        let cut = try FFmpeg.samples(of: file, in: cli.scratch)
        #expect(cut.count >= 108_000 && cut.count < 108_000 + 1024, "\(cut.count)")
        let expected = samples[60_000..<168_000]
        let error = zip(cut, expected).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        let power = expected.reduce(0.0) { $0 + Double($1) * Double($1) }
        let correlation = zip(cut, expected).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            / (power * cut.prefix(108_000).reduce(0.0) { $0 + Double($1) * Double($1) }).squareRoot()
        #expect(correlation > 0.999 && 10 * log10(error / power) < -25, "correlation \(correlation), error \(10 * log10(error / power)) dB")
        // Its loudness measured anew, as the library measures the file.
        let integrated = try #require((memo["loudness"] as? [String: Any])?["integrated"] as? Double)
        #expect(abs(integrated - (try read.measureLoudness().integrated)) < 0.05, "\(integrated)")
        // Exported as it is, the edit list goes with the packets.
        #expect(try cli.run("export", id, cli.scratch.path("out.m4a")).status == 0)
        #expect(try FFprobe.codec(of: cli.scratch.path("out.m4a")).frames == 108_000)
        #expect(try FFprobe.packetHashes(of: cli.scratch.path("out.m4a")) == Array(packets[58...165]))

        let restore = try cli.run("restore", id)
        #expect(restore.status == 0 && restore.standardOutput.hasPrefix("Restored \(id) “Speech” as it was before the trim 0:01.3–0:03.5 of "))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "the original file, byte for byte")
        #expect(try cli.json(cli.run("info", id, "--json"))["duration"] as? Double == 4)
        #expect(try cli.lines("trash") == ["The trash is empty."])
    }

    @Test func theTrashListsTheVersionsUndoRestoresTheLastEditAndEmptyRemovesThemForGood() throws {
        let cli = try CLI()
        let (first, _) = try Self.importSpeech(cli, format: "wav", title: "First")
        let (second, secondFile) = try Self.importSpeech(cli, format: "opus", title: "Second")
        #expect(try cli.run("trim", first, "--start", "1").status == 0)
        #expect(try cli.run("trim", second, "--end", "2").status == 0)
        let trash = try cli.lines("trash")
        #expect(trash.count == 4 && trash[0].hasPrefix("ID") && trash[1].hasPrefix(second) && trash[2].hasPrefix(first), "\(trash)")
        #expect(trash[1].contains("trim 0:00.0–0:02.0") && trash[3].hasPrefix("2 versions, ") && trash[3].hasSuffix("'voicememo trash --empty' removes them for good"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("trash", "--json").standardOutput.utf8)) as? [[String: Any]])
        #expect(json.map { $0["id"] as? String } == [first, second])
        #expect((json[1]["edit"] as? [String: Any])?["trim"] != nil && FileManager.default.fileExists(atPath: json[1]["file"] as? String ?? ""))

        let undo = try cli.run("undo", "--json")
        let undone = try cli.json(undo)["id"] as? String
        #expect(undo.status == 0 && undone == second)
        #expect(try Sox.info(Self.decodedFile(secondFile, cli)).frames > 96000, "the whole memo back")
        let emptied = try cli.run("trash", "--empty")
        #expect(emptied.status == 0 && emptied.standardOutput.hasPrefix("Emptied the trash: 1 version, "))
        let nothing = try cli.run("undo")
        #expect(nothing.status == 1 && nothing.standardError == "voicememo: there is no edit or delete to undo: the trash is empty ('voicememo trash' lists what it keeps)\n")
        let none = try cli.run("restore", first)
        #expect(none.status == 1 && none.standardError.contains("has no earlier version to restore"))
    }

    static func decodedFile(_ file: String, _ cli: CLI) throws -> String {
        let wav = cli.scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", file, wav])
        return wav
    }

    @Test(arguments: ["wav", "m4a"])
    func aCutOutsideTheMemoIsOneLineAndChangesNothing(format: String) throws {
        let cli = try CLI()
        let (id, file) = try Self.importSpeech(cli, format: format)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let usage: [[String]] = [["trim", id], ["trim", id, "--start", "3", "--end", "2"], ["trim", id, "--start", "soon"], ["trim", id, "--end", "1:75"]]
        for arguments in usage {
            let result = try cli.run(arguments, with: [:])
            #expect(result.status == 2 && !result.standardError.isEmpty, "\(arguments): \(result.standardError)")
        }
        let past = try cli.run("trim", id, "--end", "1:00")
        #expect(past.status == 1 && past.standardError.hasPrefix("voicememo: cannot trim “Speech”: it ends at ") && past.standardError.hasSuffix(" s; give an end within it\n"))
        #expect(past.standardError.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original && cli.lines("trash") == ["The trash is empty."])
    }
}
