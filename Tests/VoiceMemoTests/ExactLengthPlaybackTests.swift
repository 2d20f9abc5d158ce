import Foundation
import TestSupport
import Testing

/// `voicememo play` gives the device exactly the audio, then drains: a short sound, the end of a range or the last
/// memo of a queue does not grow by the rest of a device period of silence. The device is the issue's: a `plug` to
/// 16-bit stereo at 48 kHz over ALSA's `file` PCM, defined in the `.asoundrc` of a temporary `HOME`, so that every
/// frame the program writes lands in a raw file (a `plug` counts as a device with a clock: `play` asks it for
/// periods of 250 ms, 12,000 frames).
@Suite(.timeLimit(.minutes(1))) struct ExactLengthPlaybackTests {
    let cli: CLI
    let output: String
    var environment: [String: String]

    init() throws {
        cli = try CLI()
        output = cli.scratch.path("out.raw")
        let home = cli.scratch.file("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try """
            pcm.raw_spk { type file slave.pcm null file "\(output)" format "raw" }
            pcm.file_spk { type plug slave { pcm "raw_spk" format S16_LE rate 48000 channels 2 } }
            """.write(to: home.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
        environment = cli.environment
        environment["HOME"] = home.path
        // alsa-lib's own configuration, which reads ~/.asoundrc, rather than the test devices' of this process.
        environment["ALSA_CONFIG_PATH"] = nil
    }

    /// Plays `arguments` on the `file_spk` device; returns the frames that reached its file.
    func framesPlayed(_ arguments: [String]) throws -> Int {
        try? FileManager.default.removeItem(atPath: output)
        let result = try Tool.run(CLI.binary, ["play"] + arguments + ["--device", "file_spk", "--no-meter"], environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? -1
        return bytes / 4
    }

    @Test(arguments: [0.15, 0.1234])
    func aShortWAVGivesTheDeviceItsFramesAndNoMore(seconds: Double) throws {
        let blip = cli.scratch.path("blip.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", blip, "synth", "\(seconds)", "sine", "880", "vol", "0.3"])
        let frames = try Sox.info(blip).frames
        #expect(frames == Int((seconds * 48000).rounded()))
        #expect(try framesPlayed([blip]) == frames)
        // And it is the sound: sox finds its peak in what the device got.
        let played = cli.scratch.path("played.wav")
        try Tool.output("sox", ["-t", "raw", "-r", "48000", "-e", "signed-integer", "-b", "16", "-c", "2", output, played])
        #expect(abs(try Sox.levels(of: played, channels: 1).peak[0] - 20 * log10(0.3)) < 0.1)
    }

    @Test func aShortVorbisFileGivesTheDeviceItsFramesAndNoMore() throws {
        let blip = cli.scratch.path("blip.ogg")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "2", blip, "synth", "0.139", "sine", "880", "vol", "0.3"])
        let frames = try Sox.info(blip).frames
        #expect(frames == 6672)
        #expect(try framesPlayed([blip]) == frames)
    }

    @Test func aFileAtAnotherRateGivesTheDeviceItsLengthAtTheDevicesRate() throws {
        // 6,615 frames at 44.1 kHz, played at 48 kHz through the plug's converter: 0.15 s there is 7,200.
        let blip = cli.scratch.path("blip44.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", blip, "synth", "0.15", "sine", "880", "vol", "0.3"])
        #expect(try Sox.info(blip).frames == 6615)
        #expect(try framesPlayed([blip]) == 7200)
    }

    @Test func aQueueEndsWithItsLastMemosLastFrame() throws {
        let first = cli.scratch.path("first.wav"), second = cli.scratch.path("second.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", first, "synth", "0.15", "sine", "440", "vol", "0.3"])
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", second, "synth", "0.1234", "sine", "880", "vol", "0.3"])
        #expect(try framesPlayed([first, second]) == 7200 + 5923)
    }

    @Test func aRangeEndsAtItsEnd() throws {
        let long = cli.scratch.path("long.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", long, "synth", "2", "sine", "440", "vol", "0.3"])
        // 0.5 to 0.875 s: 18,000 frames, a period and a half.
        #expect(try framesPlayed([long, "--start", "0.5", "--end", "0.875"]) == 18000)
        // The same range as a clock reads it, as trim and list write times.
        #expect(try framesPlayed([long, "--start", "0:00.5", "--end", "0:00:00.875"]) == 18000)
    }
}
