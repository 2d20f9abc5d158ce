import ArgumentParser
import AudioIO
import FoundationEssentials
import SystemPackage

extension VoiceMemo {
    struct Presets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "presets",
            abstract: "List the presets that --preset takes: yours and the built-in ones.",
            discussion: """
                Yours are JSON files in $XDG_CONFIG_HOME/voicememo/presets (~/.config/voicememo/presets), \
                e.g. {"description": "Speech", "format": "opus", "sampleRate": 48000, "channels": 1, \
                "bitRate": 32000}; one named as a built-in preset takes its place. A file that is not a \
                valid preset is named on standard error, and the command then fails.
                """)

        @Flag(help: "Print the presets as one JSON array.")
        var json = false

        func run() async throws {
            let userDirectory = AudioPreset.searchDirectories[0].standardized.path + "/"
            var presets: [(preset: AudioPreset, file: URL)] = []
            var failures = 0
            for file in AudioPreset.files() {
                do {
                    presets.append((try AudioPreset(contentsOf: file), file))
                } catch {
                    failures += 1
                    _ = try? FileDescriptor.standardError.writeAll("voicememo: \("\(error)".terminalSafe)\n".utf8)
                }
            }
            if json {
                print(try MemoJSON.line(presets.map { PresetJSON($0.preset, file: $0.file) }))
            } else {
                var table = Table(columns: [
                    Table.Column(heading: "NAME"), Table.Column(heading: "SETTINGS"), Table.Column(heading: "FROM"),
                    Table.Column(heading: "DESCRIPTION", maximumWidth: 60),
                ])
                for (preset, file) in presets {
                    let from = file.standardized.path.hasPrefix(userDirectory) ? "yours" : "built in"
                    table.append([preset.name.terminalSafe, Self.settings(preset.settings), from, preset.description.terminalSafe])
                }
                print(presets.isEmpty ? "No presets." : table.text)
            }
            if failures > 0 { throw ExitCode.failure }
        }

        /// e.g. `opus 48 kHz mono 32 kb/s`, `aac 48 kHz mono 64 kb/s`, `wav 44.1 kHz stereo 24-bit`.
        static func settings(_ settings: AudioSettings) -> String {
            let format = Describe.format(settings.format, sampleRate: settings.sampleRate, channels: settings.channelCount)
            if [.opus, .aac].contains(settings.format) { return format + " \(settings.effectiveBitRate / 1000) kb/s" }
            return format + (settings.effectiveBitDepth == .float32 ? " float" : " \(settings.effectiveBitDepth.rawValue)-bit")
        }
    }
}

/// A preset as `presets --json` prints it.
private struct PresetJSON: Encodable {
    let name: String
    let description: String
    let file: String
    let format: AudioFileFormat
    let sampleRate: Double
    let channels: Int
    let bitDepth: Int?
    let bitRate: Int?

    init(_ preset: AudioPreset, file: URL) {
        name = preset.name
        description = preset.description
        self.file = file.path
        format = preset.settings.format
        sampleRate = preset.settings.sampleRate
        channels = preset.settings.channelCount
        let hasBitRate = [.opus, .aac].contains(preset.settings.format)
        bitDepth = hasBitRate ? nil : preset.settings.effectiveBitDepth.rawValue
        bitRate = hasBitRate ? preset.settings.effectiveBitRate : nil
    }
}
