import Foundation
import TestSupport
import Testing

/// Loudness on the command line: `info` and `list --json` show each memo's (as ffmpeg's `ebur128` filter measures it),
/// `list --sort loudness` sorts by it, an older store's memos are measured once when first shown, and `play` and
/// `export --normalize` bring memos to a loudness.
@Suite struct LoudnessCommandTests {
    /// What ffmpeg's `ebur128` filter measures of `path`: integrated loudness (LUFS) and true peak (dBFS).
    /// `format`: how to read it, e.g. `["-f", "s32le", "-ar", "48000", "-ac", "2"]` for raw samples.
    static func ffmpeg(_ path: String, format: [String] = []) throws -> (integrated: Double, truePeak: Double) {
        let result = try Tool.run("ffmpeg", ["-nostats", "-hide_banner"] + format + ["-i", path, "-filter_complex", "ebur128=peak=true", "-f", "null", "-"])
        let summary = try #require(result.standardError.components(separatedBy: "Summary:").last)
        func value(_ label: String) throws -> Double {
            let line = try #require(summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) })
            return try #require(Double(line.split(separator: " ")[1]))
        }
        return (try value("I:"), try value("Peak:"))
    }

    /// A tone of `seconds` at `volume` (linear), imported as a memo titled `title`; its id.
    static func tone(_ cli: CLI, _ title: String, volume: Double, format: String = "wav") throws -> String {
        let source = cli.scratch.path(UUID().uuidString + ".wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1, "sine 440", volume: volume)
        return try #require(try cli.json(cli.run("import", source, "--title", title, "--format", format, "--json"))["id"] as? String)
    }

    @Test func infoAndListShowTheLoudnessFFmpegMeasures() throws {
        let cli = try CLI()
        let (id, file) = try TrimTests.importSpeech(cli, format: "wav")
        let theirs = try Self.ffmpeg(file)
        let info = try cli.json(cli.run("info", id, "--json"))
        let loudness = try #require(info["loudness"] as? [String: Double])
        #expect(abs(try #require(loudness["integrated"]) - theirs.integrated) <= 0.1, "\(loudness) vs ffmpeg's \(theirs)")
        #expect(abs(try #require(loudness["truePeak"]) - theirs.truePeak) <= 0.2, "\(loudness) vs ffmpeg's \(theirs)")
        #expect(try #require(loudness["range"]) >= 0)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]])
        #expect(listed.first?["loudness"] as? [String: Double] == loudness)
        #expect(try cli.lines("info", id).contains { $0.hasPrefix("Loudness:") && $0.hasSuffix(" dBTP") })
    }

    @Test func listSortsLoudestFirstWithALoudnessColumn() throws {
        let cli = try CLI()
        let quiet = try Self.tone(cli, "Quiet", volume: 0.05)
        let loud = try Self.tone(cli, "Loud", volume: 0.8, format: "opus")
        let middle = try Self.tone(cli, "Middle", volume: 0.2, format: "caf")
        let lines = try cli.lines("list", "--sort", "loudness")
        #expect(lines.count == 4 && lines[0].contains(" LUFS"), "\(lines)")
        #expect(lines.dropFirst().map { String($0.prefix(12)) } == [loud, middle, quiet])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("list", "--sort", "loudness", "--json").standardOutput.utf8)) as? [[String: Any]])
        #expect(json.map { $0["id"] as? String } == [loud, middle, quiet])
    }

    @Test func theMemosOfAnOlderStoreAreMeasuredWhenFirstShownAndKept() throws {
        let cli = try CLI()
        let id = try Self.tone(cli, "Old", volume: 0.3)
        let index = cli.storeState.appendingPathComponent("memos.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: index)) as? [String: Any])
        let measured = try #require((json["memos"] as? [[String: Any]])?.first?["loudness"] as? [String: Double])
        json["schemaVersion"] = 2
        json["memos"] = (json["memos"] as? [[String: Any]])?.map { $0.filter { $0.key != "loudness" } }
        try JSONSerialization.data(withJSONObject: json).write(to: index)
        try FileManager.default.removeItem(at: cli.storeState.appendingPathComponent(".memos.cache"))

        #expect(try cli.run("list").status == 0)
        #expect(try !String(contentsOf: index, encoding: .utf8).contains("loudness"), "a plain list measures nothing")
        let info = try cli.json(cli.run("info", id, "--json"))
        #expect(info["loudness"] as? [String: Double] == measured.mapValues { ($0 * 100).rounded() / 100 })
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: index)) as? [String: Any])
        #expect(kept["schemaVersion"] as? Int == 3 && (kept["memos"] as? [[String: Any]])?.first?["loudness"] != nil)
    }

    @Test func playAtALoudnessSaysTheGainItPlaysWith() throws {
        let cli = try CLI()
        let id = try Self.tone(cli, "Soft", volume: 0.05)
        let loudness = try #require(try cli.json(cli.run("info", id, "--json"))["loudness"] as? [String: Double])
        let gain = min(-16 - loudness["integrated"]!, -1 - loudness["truePeak"]!)
        #expect(gain > 10, "raised: a soft tone, far from full scale")
        /// The gain a line of `play` says, e.g. `+4.2` in `... at -16.0 LUFS (+4.2 dB)`.
        func said(_ line: String, at target: String) throws -> Double {
            let match = try #require(line.firstMatch(of: #/ on null at (-[0-9.]+) LUFS \(([-+][0-9.]+) dB\)$/#), "\(line)")
            #expect(match.1 == target)
            return try #require(Double(match.2))
        }
        let play = try cli.run("play", id, "--normalize", "--device", "null")
        #expect(play.status == 0 && play.standardOutput.hasPrefix("Playing “Soft” (0:01.0) on null at "))
        // Shown to a tenth of a dB, from a loudness info shows to a hundredth.
        #expect(abs(try said(play.standardOutput.trimmingCharacters(in: .newlines), at: "-16.0") - gain) <= 0.06, "\(play.standardOutput) for \(gain)")
        let other = try cli.run("play", id, "--normalize", "-40", "--device", "null")
        #expect(abs(try said(other.standardOutput.trimmingCharacters(in: .newlines), at: "-40.0") - (-40 - loudness["integrated"]!)) <= 0.06, "\(other.standardOutput)")
        let bad = try cli.run("play", id, "--normalize", "-90")
        #expect(bad.status == 2 && bad.standardError.contains("--normalize takes a loudness in LUFS between -70 and 0"))
    }

    /// A quiet memo with one click of ten loud samples cannot be raised to -16 LUFS without its peak going over -1 dBTP: `play` and
    /// `export` say the loudness it does reach and why, and the exported file measures so (ffmpeg's meter).
    @Test func aGainHeldBackByTheTruePeakSaysTheLoudnessReachedAndWhy() throws {
        let cli = try CLI()
        let (quiet, click, source) = (cli.scratch.path("quiet.wav"), cli.scratch.path("click.wav"), cli.scratch.path("memo.wav"))
        try Tool.output("sox", ["-R", "-n", "-r", "48000", "-c", "1", "-b", "16", quiet, "synth", "2", "pinknoise", "vol", "0.02"])
        try Tool.output("sox", ["-R", "-n", "-r", "48000", "-c", "1", "-b", "16", click, "synth", "0.0002", "square", "1000", "vol", "0.9"])
        try Tool.output("sox", [quiet, click, quiet, source])
        let id = try #require(try cli.json(cli.run("import", source, "--title", "Click", "--json"))["id"] as? String)
        let loudness = try #require(try cli.json(cli.run("info", id, "--json"))["loudness"] as? [String: Double])
        let (integrated, truePeak) = (loudness["integrated"]!, loudness["truePeak"]!)
        let gain = -1 - truePeak
        #expect(gain < -16 - integrated - 3, "the peak holds it back: \(loudness)")
        /// The loudness and gain a line says, and the true peak it says that gain leaves.
        func said(_ output: String) throws -> (reached: Double, gain: Double, peak: Double) {
            let pattern = #/ at (-[0-9.]+) LUFS, not -16\.0 \(([-+][0-9.]+) dB: its true peak, (-[0-9.]+) dBTP, stays under -1 dBTP\)\n$/#
            let match = try #require(output.firstMatch(of: pattern), "\(output)")
            return (try #require(Double(match.1)), try #require(Double(match.2)), try #require(Double(match.3)))
        }
        let play = try cli.run("play", id, "--normalize", "--device", "null")
        #expect(play.status == 0, "\(play.standardError)")
        let played = try said(play.standardOutput)
        #expect(abs(played.reached - (integrated + gain)) <= 0.06 && abs(played.gain - gain) <= 0.06 && played.peak == -1)

        let out = cli.scratch.path("normalized.wav")
        let export = try cli.run("export", id, out, "--normalize")
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try said(export.standardOutput) == played)
        let measured = try Self.ffmpeg(out)
        #expect(abs(measured.integrated - played.reached) <= 0.2 && measured.truePeak <= -0.9, "\(measured)")
    }

    /// Memos played in turn are each brought to the loudness, as memos played together are: the device gets a soft memo
    /// raised and a loud one lowered, each at -20 LUFS as ffmpeg measures what it got.
    @Test func memosPlayedInTurnAreEachAtTheLoudness() throws {
        let cli = try CLI()
        for (title, volume) in [("Soft", 0.05), ("Loud", 0.6)] {
            let source = cli.scratch.path("\(title).wav")
            try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 1, "sine 440 sine 440", volume: volume)
            #expect(try cli.run("import", source, "--title", title).status == 0)
        }
        let raw = cli.scratch.path("out.raw")
        let play = try cli.run("play", "Soft", "Loud", "--normalize", "-20", "--device", "file:'\(raw)',raw")
        #expect(play.status == 0, "\(play.standardError)")
        let lines = play.standardOutput.split(separator: "\n")
        let gains = try lines.map { line in
            let match = try #require(line.firstMatch(of: #/ at -20\.0 LUFS \(([-+][0-9.]+) dB\)$/#), "\(line)")
            return try #require(Double(match.1))
        }
        #expect(lines.count == 2 && gains[0] > 0 && gains[1] < 0, "raised, then lowered: \(lines)")
        // Stereo 32-bit frames: one memo a second, from the first that sounds, less the frame before it (a sine
        // starts at 0); the device gets those two seconds and no more.
        let played = try Data(contentsOf: URL(fileURLWithPath: raw))
        let frames = played.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let first = try #require(frames.firstIndex { $0 != 0 }) / 2 * 2 - 2
        try #require(first >= 0 && frames.count - first == 4 * 48000, "\(frames.count - first) samples from the first")
        for (half, title) in ["Soft", "Loud"].enumerated() {
            let path = cli.scratch.path("\(title).raw")
            try played.subdata(in: 4 * (first + 2 * 48000 * half) ..< 4 * (first + 2 * 48000 * (half + 1))).write(to: URL(fileURLWithPath: path))
            let heard = try Self.ffmpeg(path, format: ["-f", "s32le", "-ar", "48000", "-ac", "2"]).integrated
            #expect(abs(heard - -20) <= 0.5, "“\(title)” heard at \(heard) LUFS")
        }
    }

    @Test func exportAtALoudnessPutsTheGainInAnOpusHeaderAndInPCMSamples() throws {
        let cli = try CLI()
        let (opus, file) = try TrimTests.importSpeech(cli, format: "opus", title: "Opus speech")
        let loudness = try #require(try cli.json(cli.run("info", opus, "--json"))["loudness"] as? [String: Double])
        let target = cli.scratch.path("normalized.opus")
        #expect(try cli.run("export", opus, target, "--normalize", "-30").status == 0)
        #expect(try FFprobe.packetHashes(of: target) == FFprobe.packetHashes(of: file), "every audio packet as it was")
        let gain = -30 - loudness["integrated"]!
        let info = try Tool.output("opusinfo", [target])
        let header = try #require(info.split(separator: "\n").first { $0.contains("Playback gain:") })
        let written = try #require(Double(header.split(separator: " ").dropLast().last ?? ""))
        #expect(abs(written - gain) <= 1.0 / 256, "\(header) for \(gain) dB")
        // Every decoder applies the header's gain: the export decodes that much quieter than the memo (to ffmpeg's tenth of
        // an LU). The memo's loudness was measured as it was encoded, a few tenths of an LU from what it decodes to: the
        // export is near -30, not at it.
        let (before, after) = (try Self.ffmpeg(file).integrated, try Self.ffmpeg(target).integrated)
        #expect(abs(after - before - gain) <= 0.1 && abs(after - -30) <= 0.5, "decoded at \(after) LUFS, before \(before), memo \(loudness)")

        let (wav, _) = try TrimTests.importSpeech(cli, format: "wav", title: "WAV speech")
        let pcm = cli.scratch.path("normalized.wav")
        #expect(try cli.run("export", wav, pcm, "--normalize", "-23").status == 0)
        #expect(abs(try Self.ffmpeg(pcm).integrated - -23) <= 0.1)
    }
}
