import Foundation

/// Speech for tests that need a voice: espeak-ng saying a phrase, made with sox into mono floats at a rate of our
/// choosing, its level set and the silence at its two ends cut.
public enum Speech {
    /// espeak-ng saying `text` (with `voice`), at `rate` Hz, peaking at `peak` dBFS, without the quiet stretches at
    /// its start and end: it begins and ends with a sample at or above `trimLevel` dBFS.
    public static func phrase(
        _ text: String, voice: String = "en", in directory: URL, rate: Int = 48000, peak: Double = -3, trimLevel: Double = -40
    ) throws -> [Float] {
        let name = "speech-\(UUID().uuidString.prefix(8))"
        let spoken = directory.appendingPathComponent(name + ".espeak.wav").path
        let made = directory.appendingPathComponent(name + ".wav").path
        try Tool.output("espeak-ng", ["-v", voice, "-w", spoken, text])
        let trim = ["silence", "1", "0", "\(trimLevel)d"]
        try Tool.output("sox", ["-D", spoken, "-r", "\(rate)", "-e", "floating-point", "-b", "32", made, "norm", "\(peak)"]
            + trim + ["reverse"] + trim + ["reverse"])
        return try Sox.samples(of: made).map { Float($0) / 0x1p31 }
    }

    /// Mono floats of sox's `synth` `kind` (e.g. `brownnoise`) for `frames` frames at `rate` Hz, scaled so that its
    /// largest sample is `peak` dBFS.
    public static func noise(_ kind: String, frames: Int, in directory: URL, rate: Int = 48000, peak: Double) throws -> [Float] {
        let path = directory.appendingPathComponent("noise-\(UUID().uuidString.prefix(8)).wav").path
        try Tool.output("sox", ["-D", "-n", "-r", "\(rate)", "-c", "1", "-e", "floating-point", "-b", "32", path,
                                "synth", "\(Double(frames) / Double(rate) + 0.01)", kind, "norm", "\(peak)"])
        return Array(try Sox.samples(of: path).prefix(frames).map { Float($0) / 0x1p31 })
    }
}
