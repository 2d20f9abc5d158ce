import Foundation
import TestSupport
import Testing

@Suite struct ImportExportTests {
    @Test func importPrintsTheMemoAsTheContractDescribesIt() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("Call mum.wav"), rate: 48000, channels: 1, seconds: 1.5, "sine 1000")
        let result = try cli.run("import", cli.scratch.path("Call mum.wav"), "--json")
        #expect(result.status == 0 && result.standardError.isEmpty)
        let memo = try cli.json(result)
        for key in ["id", "title", "createdAt", "duration", "file", "format", "sampleRate", "channels",
                    "sizeBytes", "peakDBFS", "averageDBFS", "state"] {
            #expect(memo[key] != nil, "missing \(key)")
        }
        #expect(memo["title"] as? String == "Call mum" && memo["format"] as? String == "wav")
        #expect(memo["duration"] as? Double == 1.5 && memo["state"] as? String == "complete")
        let file = try #require(memo["file"] as? String)
        #expect(file.hasPrefix(cli.home.path + "/") && FileManager.default.fileExists(atPath: file))
        let sox = try Sox.levels(of: file, channels: 1)
        let peak = try #require((memo["peakDBFS"] as? [Double])?.first)
        let average = try #require((memo["averageDBFS"] as? [Double])?.first)
        #expect(abs(peak - sox.peak[0]) < 0.1 && abs(average - sox.rms[0]) < 0.1)
        #expect(try #require(ISO8601DateFormatter().date(from: memo["createdAt"] as? String ?? "")).timeIntervalSinceNow > -60)
    }

    @Test func importThenExportGivesBackTheSameSamples() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("in.wav"), rate: 44100, channels: 2, bits: 24, seconds: 1, "whitenoise")
        #expect(try cli.run("import", cli.scratch.path("in.wav"), "--title", "Noise").status == 0)
        let export = try cli.run("export", "Noise", cli.scratch.path("out.wav"))
        #expect(export.status == 0, "\(export.standardError)")
        #expect(export.standardOutput.contains("Exported “Noise”"))
        #expect(try Sox.samples(of: cli.scratch.path("in.wav")) == Sox.samples(of: cli.scratch.path("out.wav")))
        #expect(try Sox.info(cli.scratch.path("out.wav")).bits == 24)
    }

    @Test func aCDRateFileBecomesAVoiceMemoAtOpusRate() throws {
        let cli = try CLI()
        try espeak("Remember to water the plants.", to: cli.scratch.path("speech.wav"))
        try Tool.output("sox", [cli.scratch.path("speech.wav"), "-r", "44100", cli.scratch.path("speech44.wav")])
        let sourceSeconds = Double(try Sox.info(cli.scratch.path("speech44.wav")).frames) / 44100
        let memo = try cli.json(cli.run("import", cli.scratch.path("speech44.wav"), "--preset", "voice", "--json"))
        #expect(memo["format"] as? String == "opus" && memo["sampleRate"] as? Double == 48000 && memo["channels"] as? Int == 1)
        let file = try #require(memo["file"] as? String)
        #expect(try Tool.run("opusinfo", [file]).status == 0)
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", file, cli.scratch.path("decoded.wav")])
        let decodedSeconds = Double(try Sox.info(cli.scratch.path("decoded.wav")).frames) / 48000
        #expect(abs(decodedSeconds - sourceSeconds) <= 0.02, "within one 20 ms Opus frame")
    }

    @Test func exportTakesTheFormatFromTheExtensionOrTheFlag() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("a.wav"), rate: 48000, channels: 1, seconds: 1, "sine 300")
        let id = try #require(try cli.json(cli.run("import", cli.scratch.path("a.wav"), "--json"))["id"] as? String)
        #expect(try cli.run("export", String(id.prefix(6)), cli.scratch.path("a.opus")).status == 0)
        #expect(try Tool.run("opusinfo", [cli.scratch.path("a.opus")]).status == 0)
        #expect(try cli.run("export", id, cli.scratch.path("b.audio"), "--format", "caf", "--sample-rate", "16000").status == 0)
        #expect(try Sox.info(cli.scratch.path("b.audio")).rate == 16000)
        try FileManager.default.createDirectory(at: cli.scratch.file("out"), withIntermediateDirectories: false)
        #expect(try cli.run("export", id, cli.scratch.path("out"), "--format", "wav").status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.scratch.path("out/a.wav")))
    }

    @Test func versionNamesTheLibrariesItRunsOn() throws {
        let version = try CLI().run("--version").standardOutput
        for library in ["alsa-lib", "libsndfile", "libopus", "libsoxr"] { #expect(version.contains(library)) }
    }

    private func espeak(_ text: String, to path: String) throws {
        try Tool.output("espeak-ng", ["-w", path, text])
    }
}
