import Foundation

/// sox as the independent reference: it makes test signals and measures files.
public enum Sox {
    /// Makes a file with sox's `synth` effect, e.g. `synth(to: p, rate: 48000, channels: 1, seconds: 1, "sine 1000")`.
    public static func synth(
        to path: String, rate: Int, channels: Int, bits: Int = 16, seconds: Double, _ effect: String,
        volume: Double = 0.5
    ) throws {
        let effectWords = effect.split(separator: " ").map(String.init)
        // -R: the same noise every run, so that a failure can be replayed.
        try Tool.output("sox", ["-R", "-D", "-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "\(bits)", path,
                                    "synth", "\(seconds)"] + effectWords + ["vol", "\(volume)"])
    }

    /// sox `stats`: `Pk lev dB` and `RMS lev dB` of each channel, in dBFS (−inf reported as −160).
    public static func levels(of path: String, channels: Int) throws -> (peak: [Double], rms: [Double]) {
        var peak: [Double] = []
        var rms: [Double] = []
        for channel in 1...channels {
            let result = try Tool.run("sox", [path, "-n", "remix", "\(channel)", "stats"])
            guard result.status == 0 else { throw ToolFailure(command: "sox stats", result: result) }
            peak.append(value(of: "Pk lev dB", in: result.standardError))
            rms.append(value(of: "RMS lev dB", in: result.standardError))
        }
        return (peak, rms)
    }

    /// The RMS level in dBFS of `samples` (left-justified 32-bit, as ``samples(of:)`` reads them); −160 for none.
    public static func level(of samples: ArraySlice<Int32>) -> Double {
        let sum = samples.reduce(0.0) { $0 + pow(Double($1) / 2_147_483_648, 2) }
        return 10 * log10(max(sum / Double(max(samples.count, 1)), 1e-16))
    }

    /// The samples of `path` as sox decodes them, left-justified in 32 bits with no dither, so that 16- and
    /// 24-bit files compare bit for bit (a 16-bit sample `s` is `s << 16`).
    public static func samples(of path: String) throws -> [Int32] {
        let raw = path + ".s32"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try Tool.output("sox", ["-D", path, "-t", "raw", "-e", "signed-integer", "-b", "32", "-L", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
    }

    /// `soxi -s` (samples per channel), `-r`, `-c`, `-b` of a file, as numbers.
    public static func info(_ path: String) throws -> (frames: Int, rate: Double, channels: Int, bits: Int) {
        func ask(_ flag: String) throws -> String {
            try Tool.output("soxi", [flag, path]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (Int(try ask("-s")) ?? -1, Double(try ask("-r")) ?? -1, Int(try ask("-c")) ?? -1, Int(try ask("-b")) ?? -1)
    }

    private static func value(of label: String, in text: String) -> Double {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(label) }),
              let field = line.split(separator: " ").last
        else { return .nan }
        return field == "-inf" ? -160 : Double(field) ?? .nan
    }
}

#if canImport(Testing)
import Testing

/// The sox helpers against sox itself: what `synth` writes, and levels read as sox's `stats` reads them.
@Suite struct SoxTests {
    @Test func aSynthesizedToneHasItsLengthFormatAndLevel() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sox-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Sox.synth(to: path, rate: 48000, channels: 1, seconds: 1, "sine 1000")
        let info = try Sox.info(path)
        #expect(info.frames == 48000 && info.rate == 48000 && info.channels == 1 && info.bits == 16)
        let samples = try Sox.samples(of: path)
        #expect(samples.count == 48000 && samples.allSatisfy { $0 & 0xFFFF == 0 }, "16-bit samples, left-justified")
        // A sine at half scale: peak −6.02 dBFS, RMS −9.03; `level(of:)` reads what sox's stats reads.
        let (peak, rms) = try Sox.levels(of: path, channels: 1)
        #expect(abs(peak[0] - -6.02) < 0.05 && abs(rms[0] - -9.03) < 0.05, "\(peak) \(rms)")
        #expect(abs(Sox.level(of: samples[...]) - rms[0]) < 0.05)
        #expect(Sox.level(of: [0, 0, 0][...]) == -160)
    }
}
#endif
