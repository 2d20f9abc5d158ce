import TestSupport
import Testing

/// A delegate method written with a slightly wrong signature is a compile error, never a method that is silently not
/// called: code is type-checked by the Swift compiler against this build's AudioIO module, as a user's would be.
@Suite struct DelegateSignatureTests {
    @Test func delegatesWithEveryMethodRightCompile() throws {
        let result = try BuiltModules.typeCheck("""
            import AudioIO
            import FoundationEssentials
            final class Listener: AudioPlayerDelegate, AudioRecorderDelegate {
                func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool) {}
                func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: AudioFileError) {}
                func audioPlayerTimeControlStatusDidChange(_ player: AudioPlayer, to status: AudioPlayer.TimeControlStatus) {}
                func audioPlayerRateDidChange(_ player: AudioPlayer, to rate: Float) {}
                func audioPlayerTimeDidJump(_ player: AudioPlayer) {}
                func audioRecorderDidFinishRecording(_ recorder: AudioRecorder, successfully: Bool) {}
                func audioRecorderEncodeErrorDidOccur(_ recorder: AudioRecorder, error: AudioFileError) {}
            }
            """)
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test(arguments: [
        ("AudioPlayerDelegate", """
            func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool) {}
            func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: (any Error)?) {}
            func audioPlayerTimeControlStatusDidChange(_ player: AudioPlayer, to status: AudioPlayer.TimeControlStatus) {}
            func audioPlayerRateDidChange(_ player: AudioPlayer, to rate: Float) {}
            func audioPlayerTimeDidJump(_ player: AudioPlayer) {}
            """),
        ("AudioPlayerDelegate", """
            func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool) {}
            func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: AudioFileError) {}
            func audioPlayerTimeControlStatusDidChange(_ player: AudioPlayer, to status: AudioPlayer.TimeControlStatus) {}
            func audioPlayerRateDidChange(_ player: AudioPlayer, to rate: Double) {}
            func audioPlayerTimeDidJump(_ player: AudioPlayer) {}
            """),
        ("AudioRecorderDelegate", """
            func audioRecorderDidFinishRecording(_ recorder: AudioRecorder, successfully: Bool) {}
            func audioRecorderEncodeErrorDidOccur(_ recorder: AudioRecorder, error: Error?) {}
            """),
    ])
    func aMethodWithANearMissSignatureIsACompileError(protocolName: String, methods: String) throws {
        let result = try BuiltModules.typeCheck("import AudioIO\nimport FoundationEssentials\nfinal class Listener: \(protocolName) {\n\(methods)\n}\n")
        #expect(result.status != 0)
        #expect(result.standardError.contains("does not conform to protocol '\(protocolName)'"), "\(result.standardError)")
    }
}
