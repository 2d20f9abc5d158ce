import AudioIO
import Testing

@Suite struct AudioSettingsTests {
    @Test func defaultsAreSixteenBitMonoWAVAt48kHz() throws {
        let settings = AudioSettings()
        #expect(settings.format == .wav && settings.sampleRate == 48000 && settings.channelCount == 1)
        #expect(settings.effectiveBitDepth == .int16)
        try settings.validate()
    }

    @Test(arguments: [
        (AudioSettings(format: .opus, sampleRate: 44100), AudioSettingsError.opusSampleRate(44100)),
        (AudioSettings(format: .opus, channelCount: 9), .channelCount(9, allowed: 1...8, format: .opus)),
        (AudioSettings(format: .wav, channelCount: 0), .channelCount(0, allowed: 1...8, format: .wav)),
        (AudioSettings(format: .caf, channelCount: 9), .channelCount(9, allowed: 1...8, format: .caf)),
        (AudioSettings(format: .wav, sampleRate: 0), .sampleRate(0)),
        (AudioSettings(format: .wav, sampleRate: -48000), .sampleRate(-48000)),
        (AudioSettings(format: .wav, sampleRate: 44100.5), .sampleRate(44100.5)),
        (AudioSettings(format: .other), .unwritableFormat(.other)),
        (AudioSettings(format: .flac, bitDepth: .float32), .bitDepth(.float32, format: .flac)),
        (AudioSettings(format: .flac, bitRate: 64000), .bitRateForFixedQuality(.flac)),
        (AudioSettings(format: .vorbis, bitDepth: .int16), .bitDepth(.int16, format: .vorbis)),
        (AudioSettings(format: .mp3, bitRate: 128_000), .bitRateForFixedQuality(.mp3)),
        (AudioSettings(format: .mp3, sampleRate: 96000), .mp3SampleRate(96000)),
        (AudioSettings(format: .mp3, channelCount: 3), .channelCount(3, allowed: 1...2, format: .mp3)),
        (AudioSettings(format: .opus, bitDepth: .int24), .bitDepthForOpus),
        (AudioSettings(format: .wav, bitRate: 64000), .bitRateForPCM(.wav)),
        (AudioSettings(format: .opus, bitRate: 5999), .opusBitRate(5999, allowed: 6000...256_000)),
        (AudioSettings(format: .opus, channelCount: 2, bitRate: 511_000), .opusBitRate(511_000, allowed: 6000...510_000)),
    ])
    func invalidSettingsAreRefusedWithTheirReason(settings: AudioSettings, expected: AudioSettingsError) {
        #expect(throws: expected) { try settings.validate() }
    }

    @Test func notANumberRateIsRefused() {
        #expect(throws: AudioSettingsError.self) { try AudioSettings(sampleRate: .nan).validate() }
    }

    @Test func opusRateErrorSaysWhichRatesWork() {
        let message = AudioSettingsError.opusSampleRate(44100).description
        #expect(message.contains("8000, 12000, 16000, 24000 or 48000"))
        #expect(message.contains("44100"))
    }

    @Test(arguments: [6000, 32000, 256_000]) func monoOpusBitRatesInRangeAreAccepted(bitRate: Int) throws {
        try AudioSettings(format: .opus, bitRate: bitRate).validate()
    }

    @Test func jsonUsesTheDocumentedKeysAndRejectsUnknownOnes() throws {
        let json = #"{"format":"opus","sampleRate":48000,"channels":2,"bitRate":96000}"#
        let settings = try JSONDecoder().decode(AudioSettings.self, from: Data(json.utf8))
        #expect(settings == AudioSettings(format: .opus, sampleRate: 48000, channelCount: 2, bitRate: 96000))
        let typo = #"{"format":"wav","sampleRte":48000,"sampleRate":48000,"channels":1}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AudioSettings.self, from: Data(typo.utf8)) }
    }
}

import Foundation
