import Foundation
import TestSupport
import Testing

/// Opus is never encoded twice when it need not be: import and export copy the Ogg stream's packets, so the audio
/// decodes (opusdec, floats: no dither) to exactly the samples the source decodes to.
@Suite struct OpusPassthroughTests {
    /// An Opus file made by opusenc from speech-like noise, with its own title and date.
    private func opusenc(_ cli: CLI, seconds: Double = 2, name: String = "source.opus") throws -> String {
        let wav = cli.scratch.path(UUID().uuidString + ".wav")
        try Sox.synth(to: wav, rate: 48000, channels: 1, seconds: seconds, "pinknoise", volume: 0.3)
        let opus = cli.scratch.path(name)
        try Tool.output("opusenc", ["--quiet", "--bitrate", "24", "--title", "Field notes", "--date", "2024-05-01", wav, opus])
        return opus
    }

    /// What opusdec decodes `path` to, as 32-bit float samples (sox reads them back left-justified in 32 bits).
    private func decoded(_ path: String, in cli: CLI) throws -> [Int32] {
        let wav = cli.scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", "--float", path, wav])
        return try Sox.samples(of: wav)
    }

    @Test func importAndExportCopyThePacketsSoTheAudioDecodesBitForBit() throws {
        let cli = try CLI()
        let source = try opusenc(cli)
        let memo = try cli.json(cli.run("import", source, "--json"))
        #expect(memo["title"] as? String == "Field notes" && memo["createdAt"] as? String == "2024-05-01T00:00:00Z", "\(memo)")
        let file = try #require(memo["file"] as? String)
        let original = try decoded(source, in: cli)
        #expect(original.count > 90000)
        #expect(try decoded(file, in: cli) == original, "the memo's file decodes to the source's samples")

        let target = cli.scratch.path("out.opus")
        let export = try cli.run("export", "Field notes", target)
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try decoded(target, in: cli) == original, "the export decodes to the source's samples")
        let info = try Tool.output("opusinfo", [target])
        #expect(info.contains("TITLE=Field notes") && info.contains("DATE=2024-05-01T00:00:00Z"), "\(info)")
        // opusenc's own comment stays beside the new title and date.
        #expect(info.contains("ENCODER=opusenc"), "\(info)")
    }

    @Test func aRenamedMemoExportsUnderItsNewTitleStillUnencoded() throws {
        let cli = try CLI()
        let source = try opusenc(cli)
        #expect(try cli.run("import", source).status == 0)
        #expect(try cli.run("rename", "Field notes", "Notes, day 2").status == 0)
        let target = cli.scratch.path("out.opus")
        #expect(try cli.run("export", "Notes, day 2", target).status == 0)
        #expect(try FFprobe.tags(of: target).tags["title"] == "Notes, day 2")
        #expect(try decoded(target, in: cli) == decoded(source, in: cli))
    }

    @Test func aChangeACopyCannotMakeEncodesAgain() throws {
        let cli = try CLI()
        let source = try opusenc(cli)
        #expect(try cli.run("import", source).status == 0)
        let target = cli.scratch.path("slow.opus")
        #expect(try cli.run("export", "Field notes", target, "--sample-rate", "16000").status == 0)
        #expect(try Tool.output("opusinfo", [target]).contains("Original sample rate: 16000 Hz"))
        #expect(try decoded(target, in: cli) != decoded(source, in: cli))
    }

    /// A recording cut mid-page (a phone that died, a copy that stopped): the whole packets are kept and the stream
    /// ended after them, as the store repairs its own recordings.
    @Test func aCutOpusFileImportsUpToItsLastWholePacket() throws {
        let cli = try CLI()
        let source = try opusenc(cli, seconds: 3)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let cut = cli.scratch.path("cut.opus")
        // opusenc's pages hold up to a second: this cuts the last one short.
        try bytes.prefix(bytes.count - 500).write(to: URL(fileURLWithPath: cut))
        let result = try cli.run("import", cut, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let memo = try cli.json(result)
        let duration = try #require(memo["duration"] as? Double)
        #expect(duration > 1 && duration < 3, "\(duration) s")
        let file = try #require(memo["file"] as? String)
        let info = try Tool.run("opusinfo", [file])
        #expect(info.status == 0 && !info.standardOutput.contains("WARNING"), "\(info.standardOutput)")
        let kept = try decoded(file, in: cli)
        let whole = try decoded(source, in: cli)
        #expect(kept.count == Int((duration * 48000).rounded()) && kept[...] == whole.prefix(kept.count), "the packets that arrived, bit for bit")
    }

    /// `cat a.opus b.opus` chains two streams, of which libsndfile reads the first only: the memo holds both, in order
    /// (decoded and encoded again: two streams' packets make no one stream).
    @Test func aChainedOpusFileKeepsEveryLinkInOrder() throws {
        let cli = try CLI()
        var links: [String] = []
        for (seconds, tone) in [(1.0, "sine 440"), (2.0, "sine 660")] {
            let wav = cli.scratch.path("\(seconds).wav")
            try Sox.synth(to: wav, rate: 48000, channels: 1, seconds: seconds, tone)
            links.append(cli.scratch.path("\(seconds).opus"))
            try Tool.output("opusenc", ["--quiet", wav, links.last!])
        }
        let chained = cli.scratch.path("chained.opus")
        try (Data(contentsOf: URL(fileURLWithPath: links[0])) + Data(contentsOf: URL(fileURLWithPath: links[1])))
            .write(to: URL(fileURLWithPath: chained))
        #expect(try Tool.output("opusinfo", [chained]).contains("Logical stream 2 ended"))
        let memo = try cli.json(cli.run("import", chained, "--json"))
        #expect(memo["duration"] as? Double == 3, "the sum of the links: \(memo)")
        let file = try #require(memo["file"] as? String)
        #expect(try Tool.output("opusinfo", [file]).contains("Playback length: 0m:03.000s"))
        let decoded = cli.scratch.path("decoded.wav")
        try Tool.output("opusdec", ["--quiet", file, decoded])
        for (start, frequency) in [(0.2, 440.0), (1.5, 660.0)] {
            let stat = try Tool.run("sox", [decoded, "-n", "trim", "\(start)", "0.6", "stat"]).standardError
            let heard = try #require(stat.split(separator: "\n").first { $0.hasPrefix("Rough   frequency:") }
                .flatMap { Double($0.split(separator: " ").last ?? "") })
            #expect(abs(heard - frequency) < frequency * 0.02, "at \(start) s sox hears \(heard) Hz")
        }
    }

    /// Each link is a file open while a chain is read: a file of hundreds of links (no recorder makes one) is refused in
    /// one line, and nothing is kept.
    @Test func aChainOfMoreLinksThanAnyoneMakesIsRefusedInOneLine() throws {
        let cli = try CLI()
        let link = try Data(contentsOf: URL(fileURLWithPath: try opusenc(cli, seconds: 0.1)))
        let chained = cli.scratch.path("many.opus")
        try Data((0..<300).flatMap { _ in link }).write(to: URL(fileURLWithPath: chained))
        let result = try cli.run("import", chained)
        #expect(result.status == 1)
        #expect(result.standardError == "voicememo: cannot read '\(chained)': it chains 300 streams one after another; voicememo reads up to 256\n")
        #expect(try cli.run("list", "--json").standardOutput == "[]\n")
    }
}
