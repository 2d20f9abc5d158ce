import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct AudioPresetTests {
    @Test func theShippedPresetsSayWhatTheyAre() throws {
        let voice = try AudioPreset.named("voice").settings
        #expect(voice == AudioSettings(format: .opus, sampleRate: 48000, channelCount: 1, bitRate: 32000))
        let music = try AudioPreset.named("music").settings
        #expect(music == AudioSettings(format: .opus, sampleRate: 48000, channelCount: 2, bitRate: 128_000))
        let lossless = try AudioPreset.named("lossless").settings
        #expect(lossless == AudioSettings(format: .flac, sampleRate: 48000, channelCount: 2, bitDepth: .int24))
        #expect(try !AudioPreset.named("voice").description.isEmpty)
    }

    @Test func everyShippedPresetIsValid() throws {
        let names = AudioPreset.availableNames()
        #expect(Set(["voice", "music", "lossless"]).isSubset(of: names))
        for name in names { _ = try AudioPreset.named(name) }
    }

    @Test func anUnknownNameListsTheAvailableOnes() {
        #expect {
            try AudioPreset.named("vocie")
        } throws: { error in
            "\(error)".contains("no preset named 'vocie'") && "\(error)".contains("voice")
        }
    }

    @Test func aNameCannotReachOutsideThePresetDirectories() {
        #expect(throws: AudioPresetError.self) { try AudioPreset.named("../Presets/voice") }
    }

    @Test(arguments: [
        (#"{"format":"opus","sampleRate":44100,"channels":1}"#, "Opus takes"),
        (#"{"format":"wav","sampleRate":48000,"channels":1,"bitrate":3}"#, "unknown key 'bitrate'"),
        (#"{"format":"wav","channels":1}"#, "missing key 'sampleRate'"),
        (#"{"format":"wav","sampleRate":"fast","channels":1}"#, "'sampleRate'"),
        (#"not json"#, "not valid JSON"),
        ("", "not valid JSON"),
    ])
    func aBrokenPresetFileSaysWhatIsWrong(contents: String, expected: String) throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("broken.json")
        try Data(contents.utf8).write(to: url)
        #expect {
            try AudioPreset(contentsOf: url)
        } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains("broken.json")
        }
    }
}
