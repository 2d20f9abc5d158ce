import AudioIO
import Foundation
import TestSupport

extension ScratchDirectory {
    /// A file `name` of sox's stereo white noise at 48 kHz lasting `seconds`, and its samples as AudioIO reads them.
    func noise(_ name: String, seconds: Double) throws -> (url: URL, samples: [Float]) {
        let url = file(name)
        try Sox.synth(to: url.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
        let audio = try AudioFile(forReading: url)
        return (url, try audio.read(frameCount: Int(audio.frameCount)))
    }
}

extension OfflineRenderer {
    /// Everything this renderer plays until its players end, written to a float WAV file in `scratch` and read back.
    func renderAll(in scratch: ScratchDirectory) throws -> [Float] {
        let output = scratch.file("rendered-\(UUID().uuidString).wav")
        try render(to: output, settings: AudioSettings(format: .wav, channelCount: channelCount, bitDepth: .float32))
        let file = try AudioFile(forReading: output)
        return try file.read(frameCount: Int(file.frameCount))
    }
}
