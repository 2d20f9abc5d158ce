import Foundation
import TestSupport
import Testing

/// `voicememo presets`: the built-in presets and the user's own, as `--preset` finds them.
@Suite struct PresetsTests {
    let cli: CLI
    let presets: URL
    var environment: [String: String]

    init() throws {
        cli = try CLI()
        presets = cli.scratch.file("config/voicememo/presets")
        try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
        environment = cli.environment
        environment["XDG_CONFIG_HOME"] = cli.scratch.path("config")
    }

    func write(_ name: String, _ body: String) throws {
        try Data(body.utf8).write(to: presets.appendingPathComponent("\(name).json"))
    }

    @Test func theBuiltInPresetsAreListedWithTheirSettings() throws {
        let result = try Tool.run(CLI.binary, ["presets"], environment: environment)
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("NAME") == true && lines.count == 6, "\(result.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("m4a ") && $0.contains("aac 48 kHz mono 64 kb/s") && $0.contains("built in") })
        #expect(lines.contains { $0.hasPrefix("voice ") && $0.contains("opus 48 kHz mono 32 kb/s") && $0.contains("built in") })
        #expect(lines.contains { $0.hasPrefix("lossless ") && $0.contains("flac 48 kHz stereo 24-bit") })
    }

    @Test func yourPresetIsListedAndTakesThePlaceOfABuiltInOneOfItsName() throws {
        try write("voice", #"{"description": "My voice", "format": "wav", "sampleRate": 16000, "channels": 1, "bitDepth": 24}"#)
        try write("podcast", #"{"format": "opus", "sampleRate": 48000, "channels": 2, "bitRate": 96000}"#)
        let lines = try Tool.run(CLI.binary, ["presets"], environment: environment).standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("voice ") && $0.contains("wav 16 kHz mono 24-bit") && $0.contains("yours") && $0.hasSuffix("My voice") })
        #expect(lines.contains { $0.hasPrefix("podcast ") && $0.contains("opus 48 kHz stereo 96 kb/s") && $0.contains("yours") })
        #expect(lines.filter { $0.hasPrefix("voice ") }.count == 1)

        let json = try Tool.run(CLI.binary, ["presets", "--json"], environment: environment)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let voice = try #require(objects.first { $0["name"] as? String == "voice" })
        #expect(voice["sampleRate"] as? Double == 16000 && voice["bitDepth"] as? Int == 24 && voice["format"] as? String == "wav")
        #expect((voice["file"] as? String)?.hasSuffix("config/voicememo/presets/voice.json") == true)

        // And --preset uses it: the memo is what the file says.
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let imported = try Tool.run(CLI.binary, ["import", source, "--preset", "voice", "--json"], environment: environment)
        let memo = try #require(try JSONSerialization.jsonObject(with: Data(imported.standardOutput.utf8)) as? [String: Any])
        let file = try #require(memo["file"] as? String)
        let info = try Sox.info(file)
        #expect(info.rate == 16000 && info.channels == 1 && info.bits == 24 && memo["format"] as? String == "wav")
    }

    @Test func aPresetUnderHOMEIsFoundWhenXDGConfigHomeIsUnset() throws {
        // HOME elsewhere than the password entry's home, as `sudo -E`, a container or a test sets it.
        let home = cli.scratch.file("home")
        let presets = home.appendingPathComponent(".config/voicememo/presets")
        try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
        try Data(#"{"format": "wav", "sampleRate": 16000, "channels": 1, "bitDepth": 16}"#.utf8)
            .write(to: presets.appendingPathComponent("small.json"))
        var environment = cli.environment
        environment["XDG_CONFIG_HOME"] = nil
        environment["HOME"] = home.path

        let listed = try Tool.run(CLI.binary, ["presets"], environment: environment)
        #expect(listed.standardOutput.split(separator: "\n").contains { $0.hasPrefix("small ") && $0.contains("yours") },
                "\(listed.standardOutput)")
        let source = cli.scratch.path("x.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let imported = try Tool.run(CLI.binary, ["import", source, "--preset", "small", "--json"], environment: environment)
        #expect(imported.status == 0, "\(imported.standardError)")
        let memo = try #require(try JSONSerialization.jsonObject(with: Data(imported.standardOutput.utf8)) as? [String: Any])
        let info = try Sox.info(try #require(memo["file"] as? String))
        #expect(info.rate == 16000 && info.channels == 1)
    }

    @Test func aBadPresetFileIsOneLineNamingItAndTheOthersAreStillListed() throws {
        try write("broken", #"{"format": "opus", "sampleRate": 44100, "channels": 1}"#)
        try write("mine", #"{"format": "caf", "sampleRate": 44100, "channels": 2}"#)
        let result = try Tool.run(CLI.binary, ["presets"], environment: environment)
        #expect(result.status == 1)
        let errors = result.standardError.split(separator: "\n")
        #expect(errors.count == 1 && errors[0].contains("config/voicememo/presets/broken.json") && errors[0].contains("fix or remove the file"), "\(result.standardError)")
        #expect(result.standardOutput.contains("\nmine ") && result.standardOutput.contains("\nvoice "))
    }

    /// `make install PREFIX=~/.local` before 0.1.0 put the built-in presets into `~/.local/share/voicememo/presets`:
    /// inside the default memo store. The first run of this version takes them out, and keeps every preset of yours.
    @Test func presetsAnEarlierInstallPutIntoTheStoreLeaveItAndYoursMoveToYourPresets() throws {
        var environment = environment
        environment["VOICEMEMO_HOME"] = nil
        environment["XDG_DATA_HOME"] = cli.scratch.path("share")
        let old = cli.scratch.file("share/voicememo/presets")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        let builtIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Presets/voice.json")
        try FileManager.default.copyItem(at: builtIn, to: old.appendingPathComponent("voice.json"))
        let podcast = Data(#"{"format": "opus", "sampleRate": 48000, "channels": 2, "bitRate": 96000}"#.utf8)
        try podcast.write(to: old.appendingPathComponent("podcast.json"))
        // One of yours that is in both places: neither is lost.
        try Data(#"{"format": "wav", "sampleRate": 8000, "channels": 1, "bitDepth": 16}"#.utf8)
            .write(to: old.appendingPathComponent("phone.json"))
        try write("phone", #"{"format": "wav", "sampleRate": 16000, "channels": 1, "bitDepth": 16}"#)

        let first = try Tool.run(CLI.binary, ["presets"], environment: environment)
        #expect(first.status == 0)
        #expect(first.standardError == "voicememo: moved your preset 'podcast' out of the memo store, into \(presets.path)\n")
        #expect(!FileManager.default.fileExists(atPath: old.appendingPathComponent("voice.json").path))
        #expect(try Data(contentsOf: presets.appendingPathComponent("podcast.json")) == podcast)
        #expect(FileManager.default.fileExists(atPath: old.appendingPathComponent("phone.json").path))
        let lines = first.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("podcast ") && $0.contains("yours") }, "\(first.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("phone ") && $0.contains("wav 16 kHz") })
        #expect(lines.contains { $0.hasPrefix("voice ") && $0.contains("built in") })

        // Once yours is gone from your presets, the store's copy takes its place, and the directory goes.
        try FileManager.default.removeItem(at: presets.appendingPathComponent("phone.json"))
        let second = try Tool.run(CLI.binary, ["list"], environment: environment)
        #expect(second.status == 0 && second.standardError.contains("'phone'"), "\(second.standardError)")
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: presets.appendingPathComponent("phone.json").path))
        let third = try Tool.run(CLI.binary, ["list"], environment: environment)
        #expect(third.status == 0 && third.standardError.isEmpty)
    }
}
