import Foundation
import TestSupport
import Testing
@testable import voicememo

/// A recording of nothing is said to be one: a muted microphone or the wrong device found while recording, not days
/// later. After three seconds of input below -80 dBFS on every channel, `record` says so on its status line, and when
/// it ends in a warning; a recording with sound in it, or shorter, says nothing.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct SilentInputTests {
    @Test func aSilentRecordingEndsWithAWarningAndKeepsItsMemo() throws {
        let cli = try CLI()
        let result = try cli.run("record", "--device", "null", "--duration", "3", "--title", "Nothing")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Recorded “Nothing” as "))
        #expect(result.standardError == """
            voicememo: warning: the recording is silent (peak -inf dBFS): is the input muted, or the wrong device? \
            'voicememo meter --device NAME' shows an input's level, 'voicememo devices' lists them

            """)
    }

    /// Sound anywhere in it, however quiet (-60 dBFS, a quiet room), or a recording too short to tell: no word.
    @Test(arguments: [("sine 440", 0.001, 3.0), ("sine 440", 0.0, 2.5)])
    func aRecordingWithSoundOrTooShortSaysNothing(effect: String, volume: Double, seconds: Double) throws {
        let cli = try CLI()
        let source = cli.scratch.path("mic.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: seconds + 1, effect, volume: volume)
        let device = try ALSATestDevices.microphone(playing: source)
        let result = try cli.run("record", "--device", device, "--duration", "\(seconds)", "--json")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
    }

    @Test func theStatusLineSaysSoWhileARecordingIsSilent() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Muted"],
                environment: cli.environment.merging(try server.environment) { $1 })
            func status(_ screen: String) -> String? { TerminalScreen(screen).rows.last { $0.hasPrefix("● REC  Muted") } }
            #expect(record.read(until: { status($0)?.contains("0:01.") == true }, timeout: 10), "\(record.screen.suffix(300))")
            #expect(status(record.screen)?.contains("silent") == false, "not in the first three seconds")
            #expect(record.read(until: { status($0)?.hasSuffix("  silent: input muted?") == true }, timeout: 10), "\(record.screen.suffix(300))")
            record.type("q")
            #expect(record.waitForExit(timeout: 10) == 0)
            #expect(record.screen.contains("voicememo: warning: the recording is silent"))
        }
    }

    @Test func silenceIsEveryChannelUnderMinus80DBFSForThreeSeconds() {
        #expect(SilentInput.isSilent(peaks: [-160], seconds: 3))
        #expect(SilentInput.isSilent(peaks: [-80.1, -120], seconds: 60))
        #expect(!SilentInput.isSilent(peaks: [-160], seconds: 2.9))
        #expect(!SilentInput.isSilent(peaks: [-160, -79.9], seconds: 3))
        #expect(!SilentInput.isSilent(peaks: [], seconds: 3))
    }
}
