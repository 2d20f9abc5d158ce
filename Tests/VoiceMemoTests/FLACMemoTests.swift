import Foundation
import TestSupport
import Testing

/// FLAC is a memo format like the others: a FLAC (or ALAC) file is kept as FLAC, lossless and about half the size of
/// WAV; the `lossless` preset records FLAC; a FLAC memo is trimmed and renamed without losing a sample; and a FLAC file
/// whose header never got its length (a recording cut short) imports what decodes of it.
@Suite(.timeLimit(.minutes(2))) struct FLACMemoTests {
    @Test func aFLACFileIsKeptAsFLACSampleForSampleAndSmallerThanWAV() throws {
        let cli = try CLI()
        let wav = cli.scratch.path("talk.wav")
        try Sox.synth(to: wav, rate: 44100, channels: 2, bits: 24, seconds: 3.0007, "pinknoise", volume: 0.2)
        let flac = cli.scratch.path("talk.flac")
        try Tool.output("sox", [wav, flac])
        let result = try cli.run("import", flac, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let memo = try cli.json(result)
        let file = try #require(memo["file"] as? String)
        #expect(memo["format"] as? String == "flac" && file.hasSuffix(".flac"), "\(memo)")
        #expect(try Sox.info(file).bits == 24)
        #expect(try Sox.samples(of: file) == Sox.samples(of: wav), "bit for bit")
        let size = try #require(memo["sizeBytes"] as? Int)
        let wavSize = try #require(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int)
        #expect(size < wavSize * 3 / 4, "\(size) bytes against WAV's \(wavSize)")
        #expect(try cli.run("list").standardOutput.contains("flac"))

        #expect(try cli.run("rename", "talk", "talk, take 2").status == 0)
        let renamed = try #require(try cli.json(cli.run("info", "talk, take 2", "--json"))["file"] as? String)
        #expect(try FFprobe.tags(of: renamed).tags["title"] == "talk, take 2")
        #expect(try Sox.samples(of: renamed) == Sox.samples(of: wav), "a rename keeps every sample")

        let trim = try cli.run("trim", "talk, take 2", "--start", "1", "--end", "2")
        #expect(trim.status == 0, "\(trim.standardError)")
        let trimmed = try #require(try cli.json(cli.run("info", "talk, take 2", "--json"))["file"] as? String)
        #expect(trimmed.hasSuffix(".flac"))
        let kept = try Sox.samples(of: trimmed)
        #expect(kept == Array(try Sox.samples(of: wav)[(44100 * 2)..<(2 * 44100 * 2)]), "the second second, sample for sample")
        #expect(try cli.run("undo").status == 0)
        #expect(try Sox.info(try #require(try cli.json(cli.run("info", "talk, take 2", "--json"))["file"] as? String)).frames == 132331)
    }

    @Test func theLosslessPresetRecordsFLAC() throws {
        let cli = try CLI()
        let source = cli.scratch.path("voice.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, bits: 24, seconds: 3, "sine 440 sine 660", volume: 0.4)
        let microphone = try ALSATestDevices.microphone(playing: source, format: .int24, channels: 2)
        let result = try cli.run(
            ["record", "--device", microphone, "--preset", "lossless", "--duration", "1.5", "--no-meter", "--json"],
            with: ALSATestDevices.environment())
        #expect(result.status == 0, "\(result.standardError)")
        let memo = try cli.json(result)
        let file = try #require(memo["file"] as? String)
        #expect(file.hasSuffix(".flac"))
        let info = try Sox.info(file)
        #expect(info.frames == 72000 && info.rate == 48000 && info.channels == 2 && info.bits == 24, "\(info)")
        #expect(try Sox.samples(of: file) == Array(try Sox.samples(of: source).prefix(72000 * 2)), "what the microphone gave")
    }

    @Test func aFLACFileWithoutItsLengthImportsWhatDecodes() throws {
        let cli = try CLI()
        let wav = cli.scratch.path("cut.wav")
        try Sox.synth(to: wav, rate: 48000, channels: 1, seconds: 5, "pinknoise", volume: 0.2)
        let whole = cli.scratch.path("whole.flac")
        try Tool.output("sox", [wav, whole])
        // A recording killed before its end: the header's sample count (36 bits from byte 21) was never written, and
        // the last third never reached the disk.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        bytes[21] &= 0xF0
        for index in 22..<26 { bytes[index] = 0 }
        let cut = cli.scratch.path("cut.flac")
        try Data(bytes.prefix(bytes.count * 2 / 3)).write(to: URL(fileURLWithPath: cut))
        let decodable = try FFmpeg.samples(of: cut, in: cli.scratch).count

        let result = try cli.run("import", cut, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let duration = try #require(try cli.json(result)["duration"] as? Double)
        // libFLAC stops at the torn frame; ffmpeg may give some of it: a frame is 4,608 samples at most here.
        #expect(abs(duration * 48000 - Double(decodable)) <= 4608, "\(duration) s, ffmpeg decodes \(decodable) frames")
        #expect(duration > 2 && duration < 4)
        let again = try cli.run("import", cut)
        #expect(again.standardOutput.contains("The file is cut short: that is what of it decodes."), "\(again.standardOutput)")
    }
}

/// Long work shows how far it has come on a terminal, and prints only its result elsewhere.
@Suite(.timeLimit(.minutes(2))) struct ImportProgressTests {
    @Test func aLongImportShowsItsProgressOnATerminalAndNothingMoreInAPipe() throws {
        let cli = try CLI()
        // Five minutes of stereo FLAC encoded as Opus: seconds of libopus's work, well past the half second after which
        // progress shows.
        let flac = cli.scratch.path("lecture.flac")
        try Sox.synth(to: flac, rate: 48000, channels: 2, seconds: 300, "pinknoise", volume: 0.2)

        let terminal = try PseudoTerminal(CLI.binary, ["import", flac, "--format", "opus"], environment: cli.environment, columns: 60)
        #expect(terminal.waitForExit(timeout: 90) == 0)
        let screen = terminal.screen
        #expect(screen.contains(#/Importing “lecture\.flac” [0-9]{1,2} %/#), "\(screen)")
        #expect(screen.contains("Imported “lecture” as "), "\(screen)")
        // The progress is drawn in place, and the result is written over it after its last redraw.
        let afterProgress = try #require(screen.components(separatedBy: " %").last)
        #expect(afterProgress.contains("\u{1B}[2KImported “lecture” as "), "\(afterProgress)")

        let piped = try cli.run("import", flac, "--title", "again", "--format", "opus")
        #expect(piped.status == 0 && piped.standardOutput.split(separator: "\n").count == 1, "\(piped.standardOutput)")
        #expect(!piped.standardOutput.contains("%") && !piped.standardOutput.contains("\u{1B}"))
    }

    /// A FLAC file cut by a copy (`head -c`): its header still tells its whole length, and libFLAC loses sync where the
    /// bytes end. What decodes up to there is imported, as sox and ffmpeg decode it, with a line saying it was cut.
    @Test func aFLACFileCutAfterItsHeaderImportsWhatDecodesAndSaysItWasCut() throws {
        let cli = try CLI()
        let wav = cli.scratch.path("noise.wav"), whole = cli.scratch.path("noise.flac"), cut = cli.scratch.path("cut.flac")
        try Tool.output("sox", ["-R", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "20", "whitenoise", "vol", "0.3"])
        try Tool.output("sox", [wav, whole])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: cut))
        #expect(try Sox.info(cut).frames == 20 * 48000, "the header tells the whole length")
        let decodable = try FFmpeg.samples(of: cut, in: cli.scratch).count

        let result = try cli.run("import", cut, "--title", "Cut")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.contains("\n  The file is cut short: that is what of it decodes.\n"), "\(result.standardOutput)")
        let memo = try cli.json(cli.run("info", "Cut", "--json"))
        let file = try #require(memo["file"] as? String)
        let frames = try Sox.info(file).frames
        #expect(frames == decodable && frames > 5 * 48000, "\(frames) frames; ffmpeg decodes \(decodable)")
        #expect(try Sox.samples(of: file) == Array(try Sox.samples(of: wav).prefix(frames)), "the samples up to the cut")
    }

    /// A WAV file cut by a copy: its header promises ten seconds, the file holds a third of one. It imports what is
    /// there, and says it was cut.
    @Test func aWAVFileCutShortSaysSo() throws {
        let cli = try CLI()
        let whole = cli.scratch.path("tone.wav"), cut = cli.scratch.path("cut.wav")
        try Sox.synth(to: whole, rate: 48000, channels: 1, seconds: 10, "sine 440")
        try Data(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(32044)).write(to: URL(fileURLWithPath: cut))
        let result = try cli.run("import", cut, "--title", "Cut", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try cli.json(result)["duration"] as? Double == 16000.0 / 48000)
        let said = try cli.run("import", cut, "--title", "Cut again")
        #expect(said.standardOutput.contains("The file is cut short: that is what of it decodes."), "\(said.standardOutput)")
        // A whole file says nothing of the kind.
        let wholeImport = try cli.run("import", whole, "--title", "Whole")
        #expect(wholeImport.status == 0 && !wholeImport.standardOutput.contains("cut short"), "\(wholeImport.standardOutput)")
    }
}
