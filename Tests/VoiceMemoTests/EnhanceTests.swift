import Foundation
import TestSupport
import Testing

/// `record --enhance` and `voicememo enhance`, through the binary, from the test microphone (unclocked).
@Suite(.timeLimit(.minutes(2))) struct EnhanceTests {
    /// 3 s of espeak-ng over pink noise, its first second noise alone, as a 16-bit mono WAV.
    func noisySpeech(_ cli: CLI) throws -> String {
        let phrase = try Speech.phrase("recorded in a noisy hallway", in: cli.scratch.url, peak: -6)
        let clean = [Float](repeating: 0, count: 48000) + phrase + [Float](repeating: 0, count: 144000 - 48000 - phrase.count)
        let noise = try Speech.noise("pinknoise", frames: clean.count, in: cli.scratch.url, peak: -25)
        let raw = cli.scratch.path("noisy.f32")
        try Data(zip(clean, noise).map { $0 + $1 }.withUnsafeBytes { Array($0) }).write(to: URL(fileURLWithPath: raw))
        let path = cli.scratch.path("noisy.wav")
        try Tool.output("sox", ["-D", "-t", "raw", "-e", "floating-point", "-b", "32", "-r", "48000", "-c", "1", raw, "-b", "16", path])
        return path
    }

    /// The RMS level of `seconds` of the file at `path`, in dBFS, as sox measures it.
    func level(_ path: String, from start: Double, seconds: Double) throws -> Double {
        let result = try Tool.run("sox", [path, "-n", "trim", "\(start)", "\(seconds)", "stats"])
        let line = result.standardError.split(separator: "\n").first { $0.hasPrefix("RMS lev dB") }
        return Double(line?.split(separator: " ").last ?? "") ?? .nan
    }

    @Test func recordEnhanceLowersTheNoiseOfTheMemo() throws {
        let cli = try CLI()
        let device = try ALSATestDevices.microphone(playing: try noisySpeech(cli))
        let plain = try cli.json(cli.run("record", "--device", device, "--duration", "2.5", "--title", "Plain", "--json"))
        let enhanced = try cli.json(cli.run("record", "--device", device, "--duration", "2.5", "--title", "Clean", "--enhance", "--json"))
        #expect(enhanced["duration"] as? Double == 2.5 && enhanced["state"] as? String == "complete")
        let before = try #require(plain["file"] as? String), after = try #require(enhanced["file"] as? String)
        // The first second is noise alone: its last half, once the suppressor has learned it.
        let drop = try level(before, from: 0.5, seconds: 0.45) - level(after, from: 0.5, seconds: 0.45)
        #expect(drop >= 10, "the noise drops by \(drop) dB")
        let refused = try cli.run("record", "--device", device, "--duration", "1", "--channels", "3", "--enhance")
        #expect(refused.status == 2 && refused.standardError.contains("--enhance takes mono or stereo"))
    }

    @Test func enhanceMakesANewMemoAndKeepsTheOriginal() throws {
        let cli = try CLI()
        let source = try noisySpeech(cli)
        let original = try cli.json(cli.run("import", source, "--title", "Hallway", "--json"))
        let originalFile = try #require(original["file"] as? String)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: originalFile))
        let result = try cli.run("enhance", "Hallway", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let enhanced = try cli.json(result)
        #expect(enhanced["title"] as? String == "Hallway (enhanced)" && enhanced["id"] as? String != original["id"] as? String)
        #expect(enhanced["duration"] as? Double == original["duration"] as? Double && enhanced["createdAt"] as? String == original["createdAt"] as? String)
        #expect(try Data(contentsOf: URL(fileURLWithPath: originalFile)) == bytes, "the original is untouched")
        #expect(try cli.json(cli.run("info", "Hallway", "--json"))["sizeBytes"] as? Int == original["sizeBytes"] as? Int)
        let after = try #require(enhanced["file"] as? String)
        let drop = try level(originalFile, from: 0.5, seconds: 0.45) - level(after, from: 0.5, seconds: 0.45)
        #expect(drop >= 10, "the noise drops by \(drop) dB")
        let named = try cli.run("enhance", "Hallway", "--title", "Hallway, clean")
        #expect(named.status == 0 && named.standardOutput.contains("“Hallway, clean”"), "\(named.standardOutput)")
        let missing = try cli.run("enhance", "nothing-here")
        #expect(missing.status == 1 && missing.standardError.hasPrefix("voicememo: no memo matches"))
    }
}
