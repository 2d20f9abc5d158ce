import Foundation
import TestSupport
import Testing

/// `voicememo import` and `play` with what phones and other recorders make (ffmpeg makes it here), many files and
/// directories at once, standard input, and files played without being imported.
@Suite(.timeLimit(.minutes(2))) struct PhoneImportTests {
    struct Kind: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        /// Frames more or fewer than the source's the codec may give (ADTS states no priming; WMA ends on a block).
        let slack: Double
        /// What the container keeps of the tags ffmpeg is given: ADTS nothing, ASF the title, MP4 and MOV both.
        var keepsTitle = true, keepsDate = true
        /// The memo's format: AAC in MP4 or MOV stays AAC (its packets copied into an M4A), ALAC becomes FLAC, the rest WAV.
        var stored = "wav"
        var testDescription: String { name }
    }

    static let kinds = [
        Kind(name: "Voice memo.m4a", arguments: ["-c:a", "aac"], slack: 0, stored: "aac"),
        Kind(name: "lossless.m4a", arguments: ["-c:a", "alac"], slack: 0, stored: "flac"),
        Kind(name: "phone.aac", arguments: ["-c:a", "aac"], slack: 2048, keepsTitle: false, keepsDate: false),
        Kind(name: "clip.mp4", arguments: ["-f", "lavfi", "-i", "color=size=64x64:rate=5", "-map", "0:a", "-map", "1:v", "-shortest", "-c:a", "aac"], slack: 0,
             stored: "aac"),
        Kind(name: "clip.mov", arguments: ["-f", "lavfi", "-i", "color=size=64x64:rate=5", "-map", "0:a", "-map", "1:v", "-shortest", "-c:a", "aac"], slack: 0,
             stored: "aac"),
        Kind(name: "dictation.wma", arguments: ["-c:a", "wmav2"], slack: 2048, keepsDate: false),
    ]

    /// `kind` made by ffmpeg from 1.5 s of a 1 kHz sine at half scale, 44.1 kHz mono, tagged with a title and date.
    private func make(_ kind: Kind, in cli: CLI) throws -> String {
        let source = cli.scratch.path("source-\(kind.name).wav")
        try Sox.synth(to: source, rate: 44100, channels: 1, seconds: 1.5, "sine 1000")
        let path = cli.scratch.path(kind.name)
        try Tool.output("ffmpeg", ["-v", "error", "-y", "-i", source] + kind.arguments
            + ["-metadata", "title=Standup — \(kind.name)", "-metadata", "creation_time=2024-03-05T10:11:12Z", path])
        return path
    }

    @Test(arguments: kinds)
    func aPhoneFileImportsWithItsLengthLevelsTitleAndDate(kind: Kind) throws {
        let cli = try CLI()
        let path = try make(kind, in: cli)
        let result = try cli.run("import", path, "--json")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let memo = try cli.json(result)
        let duration = try #require(memo["duration"] as? Double)
        #expect(abs(duration - 1.5) <= kind.slack / 44100 + 1e-9, "\(duration) s")
        #expect(memo["format"] as? String == kind.stored && memo["sampleRate"] as? Double == 44100)
        let title = kind.keepsTitle ? "Standup — \(kind.name)" : URL(fileURLWithPath: kind.name).deletingPathExtension().lastPathComponent
        #expect(memo["title"] as? String == title)
        #expect((memo["createdAt"] as? String == "2024-03-05T10:11:12Z") == kind.keepsDate, "\(memo["createdAt"] ?? "")")
        // The levels of what ffmpeg itself decodes, as sox measures them; and what sox measures in the memo.
        try Tool.output("ffmpeg", ["-v", "error", "-i", path, "-c:a", "pcm_f32le", cli.scratch.path("reference.wav")])
        let reference = try Sox.levels(of: cli.scratch.path("reference.wav"), channels: 1)
        // sox reads no M4A: ffmpeg decodes an AAC memo for it.
        var file = try #require(memo["file"] as? String)
        if kind.stored == "aac" {
            try Tool.output("ffmpeg", ["-v", "error", "-i", file, "-c:a", "pcm_f32le", cli.scratch.path("stored.wav")])
            file = cli.scratch.path("stored.wav")
        }
        let stored = try Sox.levels(of: file, channels: 1)
        let peak = try #require((memo["peakDBFS"] as? [Double])?.first)
        let average = try #require((memo["averageDBFS"] as? [Double])?.first)
        #expect(abs(peak - reference.peak[0]) < 0.5 && abs(average - reference.rms[0]) < 0.5, "\(peak) \(average) vs \(reference)")
        #expect(abs(stored.peak[0] - reference.peak[0]) < 0.5 && abs(stored.rms[0] - reference.rms[0]) < 0.5)
        #expect(abs(average - -9.03) < 0.5, "a half-scale sine")
    }

    /// Debian's ffmpeg has no AMR encoder: the call recording is written here, 75 speech frames of 20 ms (12.2 kb/s,
    /// their bits all zero) in AMR's storage format (RFC 4867 §5).
    @Test func aCallRecordersAMRFileImportsAt8kHzAndPlays() throws {
        let cli = try CLI()
        let frame: [UInt8] = [7 << 3 | 4] + [UInt8](repeating: 0, count: 31)
        try Data(Array("#!AMR\n".utf8) + Array(repeating: frame, count: 75).joined()).write(to: cli.scratch.file("call.amr"))
        let result = try cli.run("import", cli.scratch.path("call.amr"), "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let memo = try cli.json(result)
        #expect(memo["duration"] as? Double == 1.5 && memo["sampleRate"] as? Double == 8000 && memo["title"] as? String == "call")
        let played = try cli.run("play", cli.scratch.path("call.amr"), "--device", "null", "--json")
        #expect(played.status == 0, "\(played.standardError)")
        #expect(try cli.json(played)["completed"] as? Bool == true)
    }

    @Test(arguments: [16, 24])
    func anALACFileBecomesAWAVOfItsVerySamples(bits: Int) throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("noise.wav"), rate: 44100, channels: 2, bits: bits, seconds: 1, "whitenoise whitenoise")
        try Tool.output("ffmpeg", ["-v", "error", "-i", cli.scratch.path("noise.wav"), "-c:a", "alac", cli.scratch.path("noise.m4a")])
        let result = try cli.run("import", cli.scratch.path("noise.m4a"), "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let file = try #require(try cli.json(result)["file"] as? String)
        #expect(try Sox.info(file).bits == bits)
        #expect(try Sox.samples(of: file) == Sox.samples(of: cli.scratch.path("noise.wav")))
    }

    /// The frames of ALSA's `file` PCM output (32-bit stereo at 48 kHz) from the first to the last that sound.
    private func soundingFrames(_ path: String) throws -> Int {
        let samples = try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let loud = Int32(1 << 21)
        guard let first = samples.firstIndex(where: { abs($0) > loud }), let last = samples.lastIndex(where: { abs($0) > loud }) else { return 0 }
        return (last - first) / 2 + 1
    }

    @Test(arguments: [kinds[0], kinds[2], kinds[5]])
    func aPhoneFilePlaysForItsLengthAsAMemoAndStraightFromItsPath(kind: Kind) throws {
        let cli = try CLI()
        let path = try make(kind, in: cli)
        let id = try #require(try cli.json(try cli.run("import", path, "--json"))["id"] as? String)
        let asMemo = try cli.run("play", id, "--device", "file:'\(cli.scratch.path("memo.raw"))',raw")
        #expect(asMemo.status == 0, "\(asMemo.standardError)")
        let fromPath = try cli.run("play", path, "--device", "file:'\(cli.scratch.path("path.raw"))',raw", "--json")
        #expect(fromPath.status == 0, "\(fromPath.standardError)")
        #expect(try cli.json(fromPath)["files"] as? [String] == [path])
        for raw in ["memo.raw", "path.raw"] {
            let frames = try soundingFrames(cli.scratch.path(raw))
            #expect(abs(Double(frames) - 72000) <= 480 + kind.slack * 48 / 44.1, "\(raw): \(frames) frames sound, of 1.5 s at 48 kHz")
        }
    }

    @Test func aFileAndAMemoPlayTogetherAndABareNameIsAMemoFirst() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "tone.wav", seconds: 0.5)
        try Sox.synth(to: cli.scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 1, "sine 440")
        let result = try Tool.run("sh", ["-c", "cd \"$0\" && exec \"$1\" play tone.wav ./tone.wav --device null --json", cli.scratch.path(""), CLI.binary],
                                  environment: cli.environment)
        #expect(result.status == 0, "\(result.standardError)")
        let summary = try cli.json(result)
        #expect((summary["memos"] as? [String])?.count == 1, "the bare name is the memo's title")
        #expect((summary["files"] as? [String])?.first?.hasSuffix("/tone.wav") == true)
        let missing = try cli.run("play", cli.scratch.path("nothing.m4a"), "--device", "null")
        #expect(missing.status == 1 && missing.standardError.contains("no such file"))
        #expect(missing.standardError.split(separator: "\n").count == 1)
    }

    @Test func manyFilesAndADirectoryImportWithALineEachAndASummary() throws {
        let cli = try CLI()
        let folder = cli.scratch.file("Recordings")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("2024/.trash"), withIntermediateDirectories: true)
        let first = try make(Self.kinds[0], in: cli)
        try FileManager.default.copyItem(atPath: first, toPath: folder.appendingPathComponent("2024/a.m4a").path)
        try FileManager.default.copyItem(atPath: try make(Self.kinds[5], in: cli), toPath: folder.appendingPathComponent("b.wma").path)
        try FileManager.default.copyItem(atPath: first, toPath: folder.appendingPathComponent("2024/.trash/old.m4a").path)
        try Data("shopping list".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data(try Data(contentsOf: URL(fileURLWithPath: first)).prefix(3000)).write(to: folder.appendingPathComponent("cut.m4a"))
        try Sox.synth(to: cli.scratch.path("loose.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")

        let result = try cli.run("import", folder.path, cli.scratch.path("loose.wav"))
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 4 && lines.prefix(3).allSatisfy { $0.hasPrefix("Imported “") }, "\(lines)")
        #expect(lines.last == "Imported 3 of 4 files; 1 failed (see above).")
        let errors = result.standardError.split(separator: "\n")
        #expect(errors.count == 1 && errors[0].contains("Recordings/cut.m4a") && errors[0].contains("damaged"), "\(errors)")
        #expect(try cli.lines("list").count == 1 + 3, "the three good files are kept")
        #expect(try cli.run("import", "--help").standardOutput.contains("every directory below it"))
    }

    @Test func aDirectoryHoldingTheStoreLeavesTheMemosFilesOut() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Already a memo")
        try Sox.synth(to: cli.scratch.path("new.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        // The scratch directory holds the store, importTone's source and new.wav.
        let result = try cli.run("import", cli.scratch.path(""))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasSuffix("Imported 2 of 2 files.\n"), "\(result.standardOutput)")
        #expect(try cli.lines("list").count == 1 + 3)
    }

    @Test func standardInputImportsLikeAFile() throws {
        let cli = try CLI()
        let tagged = try Data(contentsOf: URL(fileURLWithPath: try make(Self.kinds[0], in: cli)))
        let fromTags = try Tool.run(CLI.binary, ["import", "-", "--json"], environment: cli.environment, input: tagged)
        #expect(fromTags.status == 0, "\(fromTags.standardError)")
        #expect(try cli.json(fromTags)["title"] as? String == "Standup — Voice memo.m4a")
        try Sox.synth(to: cli.scratch.path("plain.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let plain = try Tool.run(CLI.binary, ["import", "-", "--json"], environment: cli.environment,
                                 input: try Data(contentsOf: cli.scratch.file("plain.wav")))
        #expect((try cli.json(plain)["title"] as? String)?.hasPrefix("Memo ") == true)
        #expect(try cli.json(plain)["duration"] as? Double == 0.5)
        let garbage = try Tool.run(CLI.binary, ["import", "-"], environment: cli.environment, input: Data("not audio".utf8))
        #expect(garbage.status == 1 && garbage.standardError.hasPrefix("voicememo: cannot read 'standard input': not a recognised audio file"))
        #expect(garbage.standardError.split(separator: "\n").count == 1)
    }

    @Test func aTruncatedPhoneFileIsOneClearLineAndNoMemo() throws {
        let cli = try CLI()
        let whole = try Data(contentsOf: URL(fileURLWithPath: try make(Self.kinds[0], in: cli)))
        try Data(whole.prefix(whole.count / 2)).write(to: cli.scratch.file("cut.m4a"))
        let result = try cli.run("import", cli.scratch.path("cut.m4a"))
        #expect(result.status == 1 && result.standardOutput.isEmpty)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("cut.m4a': the file is damaged"), "\(result.standardError)")
        #expect(try cli.lines("list").count <= 1)
    }
}
