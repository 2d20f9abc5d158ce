import AudioIO
import Foundation
import TestSupport
import Testing

/// Files with more channels than the device play mixed down: 5.1 and 7.1 with ITU-R BS.775's coefficients,
/// every layout as ffmpeg's `-ac 2` and `-ac 1` mix it.
@Suite(.timeLimit(.minutes(1))) struct DownmixTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    /// −3 dB: BS.775's gain for the centre and the surrounds.
    static let minus3dB = 0.5.squareRoot()

    /// A 16-bit WAV of `channels` channels at 48 kHz, each a sine of its own (200 Hz, 300 Hz, …) and level, so
    /// that each channel's share of a mix can be told apart. sox marks 4, 6 and 8 channels as quad, 5.1 and 7.1.
    func tones(channels: Int, seconds: Double = 0.25) throws -> URL {
        let file = scratch.file("tones\(channels).wav")
        let sines = (0..<channels).flatMap { ["sine", "\(200 + 100 * $0)"] }
        let gains = (0..<channels).map { "\($0 + 1)v\(1 - 0.1 * Double($0))" }
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "\(channels)", "-b", "16", file.path, "synth", "\(seconds)"]
            + sines + ["vol", "0.3", "remix"] + gains)
        return file
    }

    /// The file's samples as sox reads them, per channel, −1…1.
    func channels(of file: URL, count: Int) throws -> [[Double]] {
        let samples = try Sox.samples(of: file.path).map { Double($0) / 2_147_483_648 }
        return (0..<count).map { channel in stride(from: channel, to: samples.count, by: count).map { samples[$0] } }
    }

    /// What ffmpeg makes of `file` mixed to `channels` channels (`-ac`), as 32-bit integers (so that it
    /// normalizes its matrix as it does for WAV and FLAC), interleaved, −1…1.
    func ffmpegMix(of file: URL, to channels: Int) throws -> [Float] {
        let raw = scratch.path("ffmpeg-\(file.lastPathComponent)-\(channels).raw")
        try Tool.output("ffmpeg", ["-v", "error", "-y", "-i", file.path, "-ac", "\(channels)", "-c:a", "pcm_s32le", "-f", "s32le", raw])
        return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { bytes in
            bytes.bindMemory(to: Int32.self).map { Float(Double($0) / 2_147_483_648) }
        }
    }

    /// `file` played on an offline renderer of `channels` channels, as long as the file.
    func rendered(_ file: URL, channels: Int) throws -> [Float] {
        let renderer = try OfflineRenderer(channelCount: channels)
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = renderer.device
        #expect(player.play())
        return renderer.render(frameCount: Int(try Sox.info(file.path).frames))
    }

    /// The largest difference between two signals of the same length.
    func largestDifference(_ actual: [Float], _ expected: [Float]) -> Float {
        guard actual.count == expected.count else { return .infinity }
        return zip(actual, expected).map { abs($0 - $1) }.max() ?? 0
    }

    @Test func fivePointOneBecomesStereoWithTheCoefficientsOfBS775NormalizedAndTheLFEDropped() throws {
        let file = try tones(channels: 6)
        let input = try channels(of: file, count: 6)
        let (l, r, c, ls, rs) = (input[0], input[1], input[2], input[4], input[5])
        let g = Self.minus3dB
        let scale = 1 / (1 + g + g)
        var expected: [Float] = []
        for frame in l.indices {
            let left: Double = l[frame] + g * c[frame] + g * ls[frame]
            let right: Double = r[frame] + g * c[frame] + g * rs[frame]
            expected += [Float(left * scale), Float(right * scale)]
        }
        let stereo = try rendered(file, channels: 2)
        #expect(largestDifference(stereo, expected) < 1e-6)
        #expect(stereo.map(abs).max()! > 0.1, "the mix is not silence")
    }

    @Test func fivePointOneBecomesMonoAsItsStereoMixSummedAtMinus3dB() throws {
        let file = try tones(channels: 6)
        let input = try channels(of: file, count: 6)
        let g = Self.minus3dB
        // (L' + R')·g with L' and R' of BS.775: L and R at g, C at 2·g·g = 1, each surround at g·g = 0.5.
        let gains = [g, g, 1, 0, 0.5, 0.5]
        let scale = 1 / gains.reduce(0, +)
        let expected = input[0].indices.map { frame in
            Float(gains.indices.map { gains[$0] * input[$0][frame] }.reduce(0, +) * scale)
        }
        #expect(largestDifference(try rendered(file, channels: 1), expected) < 1e-6)
    }

    @Test(arguments: [3, 4, 5, 6, 7, 8], [1, 2])
    func everyLayoutMixesAsFFmpegMixesIt(channels: Int, device: Int) throws {
        let file = try tones(channels: channels)
        let ours = try rendered(file, channels: device)
        let ffmpeg = try ffmpegMix(of: file, to: device)
        #expect(ours.count == ffmpeg.count)
        // ffmpeg mixes in floats with the same gains: the same samples but for rounding (2.3e-10 at most here).
        #expect(largestDifference(ours, ffmpeg) < 1e-7, "\(channels) to \(device) channels")
        #expect(ours.map(abs).max()! > 0.1, "the mix is not silence")
    }

    @Test func sixChannelsReachAStereoDeviceMixed() async throws {
        let rig = try PlaybackRig()
        let file = try tones(channels: 6)
        let ffmpeg = try ffmpegMix(of: file, to: 2)
        let player = try rig.player(file)
        #expect(player.numberOfChannels == 6)
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: ffmpeg.count / 2)
        let left = device.left.prefix(ffmpeg.count / 2).map { Float(Double($0) / 2_147_483_648) }
        let right = device.right.prefix(ffmpeg.count / 2).map { Float(Double($0) / 2_147_483_648) }
        let (ffmpegLeft, ffmpegRight) = (stride(from: 0, to: ffmpeg.count, by: 2).map { ffmpeg[$0] }, stride(from: 1, to: ffmpeg.count, by: 2).map { ffmpeg[$0] })
        #expect(largestDifference(left, ffmpegLeft) < 1e-7 && largestDifference(right, ffmpegRight) < 1e-7)
        #expect(left != right, "left and right hold their own sides")
    }

    @Test func aConversionMixesDownAsPlaybackDoesAndRefusesWhatHasNoMeaning() throws {
        let file = try tones(channels: 6)
        let stereo = scratch.file("stereo.wav")
        _ = try AudioFileConverter.convert(contentsOf: file, to: stereo, settings: AudioSettings(format: .wav, channelCount: 2, bitDepth: .float32))
        #expect(try Sox.info(stereo.path).channels == 2)
        let written = try AudioFile(forReading: stereo)
        #expect(largestDifference(try written.read(frameCount: Int(written.frameCount)), try rendered(file, channels: 2)) == 0)
        #expect {
            _ = try AudioFileConverter.convert(contentsOf: file, to: scratch.file("four.wav"), settings: AudioSettings(channelCount: 4))
        } throws: { "\($0)".contains("6 channels cannot be mapped to 4; ask for 1, 2 or 6 channels") }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("four.wav")))
    }
}
