import Foundation
import TestSupport
import Testing

/// The test devices themselves, checked with alsa-utils, so that a broken rig is told apart from a
/// broken library.
@Suite struct TestRigTests {
    @Test func theTestMicrophoneCapturesItsInfileExactly() throws {
        let scratch = try ScratchDirectory()
        let tone = scratch.path("tone.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let microphone = try ALSATestDevices.microphone(playing: tone)
        let captured = scratch.path("captured.raw")
        try Tool.output("arecord", ["-q", "-D", microphone, "-f", "S32_LE", "-r", "48000", "-c", "2", "-s", "24000",
                                    "--period-size=480", "--buffer-size=1920", "-t", "raw", captured])
        #expect(try Data(contentsOf: URL(fileURLWithPath: captured)) == Data(contentsOf: URL(fileURLWithPath: tone + ".raw")))
    }

    @Test func thePulseAudioServerAnswersAndItsSinkCanBeUnloaded() throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
        let environment = try server.environment
        let listing = try Tool.run("pactl", ["list", "short", "sinks"], environment: environment)
        #expect(listing.standardOutput.contains(PulseAudioServer.sinkName))
        try server.unloadSink()
        #expect(try !Tool.run("pactl", ["list", "short", "sinks"], environment: environment).standardOutput
            .contains(PulseAudioServer.sinkName))
        try server.loadSink()
        #expect(try Tool.run("pactl", ["list", "short", "sinks"], environment: environment).standardOutput
            .contains(PulseAudioServer.sinkName))
    }
}
