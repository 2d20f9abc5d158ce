import Foundation
import TestSupport
import Testing

/// `voicememo play` through the real binary onto ALSA's `file` PCM, which writes what it is given
/// (32-bit stereo at 48 kHz, what the engine negotiates) into a raw file.
@Suite(.timeLimit(.minutes(1))) struct PlayTests {
    private func device(_ cli: CLI, _ name: String = "out") -> (name: String, file: String) {
        let file = cli.scratch.path("\(name).raw")
        return ("file:'\(file)',raw", file)
    }

    private func samples(_ path: String) throws -> [Int32] {
        try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
    }

    @Test func aMemoPlaysToTheEndAndReportsIt() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Tone", seconds: 0.5)
        let output = device(cli)
        let result = try cli.run("play", String(id.prefix(5)), "--device", output.name, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let summary = try cli.json(result)
        #expect(summary["completed"] as? Bool == true && summary["memos"] as? [String] == [id])
        let played = try samples(output.file)
        #expect(played.count >= 2 * 24000)
        #expect(played.prefix(48000).contains { $0 != 0 })
    }

    @Test func skipSilenceCutsThePausesToAFifthOfASecondAndSaysHowMuchItSaved() throws {
        let cli = try CLI()
        // Half a second of tone, 1.5 s of silence, tone, 1 s of silence, tone: 4 s.
        let tone = cli.scratch.path("tone.wav"), long = cli.scratch.path("long.wav"), short = cli.scratch.path("short.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        try Tool.output("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", long, "trim", "0", "1.5"])
        try Tool.output("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", short, "trim", "0", "1"])
        let source = cli.scratch.path("pauses.wav")
        try Tool.output("sox", [tone, long, tone, short, tone, source])
        #expect(try cli.run("import", source, "--title", "Pauses").status == 0)
        let output = device(cli)
        let result = try cli.run("play", "Pauses", "--skip-silence", "--device", output.name, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let saved = try #require(try cli.json(result)["silenceSkipped"] as? Double)
        #expect(abs(saved - 2.1) < 0.05 * 2.1, "1.3 s and 0.8 s left out: \(saved)")
        // What the device got, from the first sound to the last: three tones and two gaps of 0.2 s.
        let left = try samples(output.file).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let first = try #require(left.firstIndex { $0 != 0 }), last = try #require(left.lastIndex { $0 != 0 })
        let heard = Double(last - first + 1) / 48000
        #expect(abs(heard - 1.9) < 0.02, "heard \(heard) s")
    }

    @Test func skipSilenceCutsThePausesOfMemosPlayedInTurnButNotOfMemosPlayedTogether() throws {
        let cli = try CLI()
        // Each: half a second of tone, 1.5 s of silence, tone, 1 s of silence, tone.
        let tone = cli.scratch.path("tone.wav"), long = cli.scratch.path("long.wav"), short = cli.scratch.path("short.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        try Tool.output("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", long, "trim", "0", "1.5"])
        try Tool.output("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", short, "trim", "0", "1"])
        let source = cli.scratch.path("pauses.wav")
        try Tool.output("sox", [tone, long, tone, short, tone, source])
        for title in ["First", "Second"] { #expect(try cli.run("import", source, "--title", title).status == 0) }
        let result = try cli.run("play", "First", "Second", "--skip-silence", "--device", device(cli).name, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        // In turn the level is measured as they play: the first memo's first pause, within its first second, may be
        // kept in part; its second pause and both of the second memo's lose 2.9 s.
        let saved = try #require(try cli.json(result)["silenceSkipped"] as? Double)
        #expect(saved >= 2.9 * 0.95 && saved <= 4.2 * 1.05, "\(saved)")

        let together = try cli.run("play", "First", "Second", "--together", "--skip-silence", "--device", device(cli).name)
        #expect(together.status == 2)
        #expect(together.standardError.contains("--skip-silence cannot be used with --together"), "\(together.standardError)")
    }

    @Test func twoMemosStartOnTheSameFrame() throws {
        let cli = try CLI()
        let signal = cli.scratch.path("signal.wav")
        try Sox.synth(to: signal, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        try Tool.output("sox", ["-D", signal, cli.scratch.path("inverse.wav"), "vol", "-1"])
        #expect(try cli.run("import", signal, "--title", "Signal").status == 0)
        #expect(try cli.run("import", cli.scratch.path("inverse.wav"), "--title", "Inverse").status == 0)
        let output = device(cli)
        #expect(try cli.run("play", "Signal", "Inverse", "--together", "--device", output.name).status == 0)
        let played = try samples(output.file)
        #expect(played.count >= 2 * 24000)
        #expect(played.allSatisfy { $0 == 0 }, "a signal and its inverse cancel when they start together")
    }

    @Test func memosPlayOneAfterAnotherWithoutAGapAndLoopsRepeatTheList() throws {
        let cli = try CLI()
        for (title, effect) in [("Noise", "whitenoise whitenoise"), ("Tone", "sine 440 sine 660")] {
            let source = cli.scratch.path("\(title).wav")
            try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 0.5, effect)
            #expect(try cli.run("import", source, "--title", title).status == 0)
        }
        let reference = try Sox.samples(of: cli.scratch.path("Noise.wav")) + Sox.samples(of: cli.scratch.path("Tone.wav"))
        let output = device(cli)
        let result = try cli.run("play", "Noise", "Tone", "--loops", "1", "--device", output.name)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").first == "Playing “Noise” (0:00.5) on \(output.name)")
        let played = try samples(output.file)
        let firstSound = try #require(played.firstIndex { $0 != 0 }) / 2 * 2
        let heard = Array(played[firstSound...].prefix(2 * reference.count))
        #expect(heard.count == 2 * reference.count && heard == reference + reference,
                "twice, sample for sample, gapless; first difference at \((reference + reference).indices.first { $0 >= heard.count || heard[$0] != (reference + reference)[$0] } ?? -1) of \(2 * reference.count)")
    }

    @Test func volumePanAndStartShapeWhatIsPlayed() throws {
        let cli = try CLI()
        let source = cli.scratch.path("noise.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 1, "whitenoise whitenoise")
        #expect(try cli.run("import", source, "--title", "Noise").status == 0)
        let output = device(cli)
        let result = try cli.run("play", "Noise", "--device", output.name, "--volume", "0.5", "--pan", "-1", "--start", "0.5")
        #expect(result.status == 0, "\(result.standardError)")
        let played = try samples(output.file)
        let reference = try Sox.samples(of: source)
        // The start is scheduled a little ahead, so the device first gets some silence.
        let firstSound = try #require(played.firstIndex { $0 != 0 }) / 2 * 2
        let left = stride(from: firstSound, to: played.count, by: 2).map { played[$0] }
        let right = stride(from: 1, to: played.count, by: 2).map { played[$0] }
        let expected = stride(from: 48000, to: reference.count, by: 2).map { reference[$0] / 2 }
        #expect(Array(left.prefix(expected.count)) == expected, "half volume, from 0.5 s")
        #expect(right.allSatisfy { $0 == 0 }, "pan -1 silences the right channel")
    }

    @Test(arguments: [("varispeed", 2000.0), ("time-domain", 1000.0)])
    func rateAndPitchPlayATwiceAsFastToneAnOctaveUpOrAtItsPitch(pitch: String, hertz: Double) throws {
        let cli = try CLI()
        let source = cli.scratch.path("tone.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1, "sine 1000")
        #expect(try cli.run("import", source, "--title", "Tone").status == 0)
        let output = device(cli)
        let result = try cli.run("play", "Tone", "--device", output.name, "--rate", "2", "--pitch", pitch)
        #expect(result.status == 0, "\(result.standardError)")
        let left = try samples(output.file).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let first = try #require(left.firstIndex { $0 != 0 })
        let last = try #require(left.lastIndex { $0 != 0 })
        #expect(abs(last + 1 - first - 24000) <= 2, "1 s at twice the speed: \(last + 1 - first) frames")
        let sound = left[(first + 2400)..<(last - 2400)]
        let measured = Double(zip(sound, sound.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count) / 2 / (Double(sound.count) / 48000)
        #expect(abs(measured - hertz) < hertz * 0.02, "--pitch \(pitch): \(measured) Hz")
    }

    @Test func startEndAndLoopsPlayExactlyTheRangeAgainAndAgainWithoutAGap() throws {
        let cli = try CLI()
        let source = cli.scratch.path("noise.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 1, "whitenoise whitenoise")
        #expect(try cli.run("import", source, "--title", "Noise").status == 0)
        let range = Array(try Sox.samples(of: source)[(2 * 12000)..<(2 * 28800)])
        let output = device(cli)
        let result = try cli.run("play", "Noise", "--start", "0.25", "--end", "0.6", "--loops", "2", "--device", output.name)
        #expect(result.status == 0, "\(result.standardError)")
        let played = try samples(output.file)
        let firstSound = try #require(played.firstIndex { $0 != 0 }) / 2 * 2
        let heard = Array(played[firstSound...].prefix(3 * range.count))
        #expect(heard == range + range + range, "0.25–0.6 s three times, to the sample")
        #expect(played[(firstSound + heard.count)...].allSatisfy { $0 == 0 }, "and nothing after")
    }

    @Test func ctrlCStopsALoopAndExitsWith130() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Loop", seconds: 0.5)
        // ALSA's null device: an endless loop on an unclocked device must not write an endless file.
        let looping = try cli.start("play", "Loop", "--loops", "-1", "--device", "null")
        defer { if looping.isRunning { looping.kill() } }
        #expect(looping.nextLine()?.hasPrefix("Playing “Loop”") == true)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(looping.isRunning, "a loop of -1 plays until stopped")
        looping.send(SIGINT)
        let result = looping.finish()
        #expect(result.status == 130)
        #expect(result.standardError.isEmpty)
    }

    @Test func aTerminalThatCannotMoveItsCursorGetsPlainLines() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Tone", seconds: 0.5)
        var environment = cli.environment
        environment["TERM"] = "dumb"
        let play = try PseudoTerminal(CLI.binary, ["play", "Tone", "--device", "null"], environment: environment)
        #expect(play.waitForExit(timeout: 20) == 0)
        #expect(play.screen == "Playing “Tone” (0:00.5) on null\r\n")
        #expect(play.localModes == play.initialModes)
    }

    @Test func aDeviceThatCannotOpenSaysWhatToDo() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Tone")
        let result = try cli.run("play", "Tone", "--device", "hw:77")
        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("cannot open audio device 'hw:77'") && result.standardError.contains("--device"))
    }

    @Test(arguments: [["--volume", "2"], ["--pan", "-3"], ["--rate", "5"], ["--rate", "0.2"], ["--pitch", "chipmunk"], ["--start", "-1"], ["--start", "2", "--end", "1"], ["--end", "1", "Tone"], ["--sleep", "20"], ["--sleep", "0m"], ["--sleep", "1m1h"]])
    func outOfRangeValuesAreUsageErrors(arguments: [String]) throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Tone")
        #expect(try Tool.run(CLI.binary, ["play", "Tone"] + arguments, environment: cli.environment).status == 2)
    }
}
