import FoundationEssentials

/// A named set of ``AudioSettings`` kept in a JSON file, such as `voice`, `music` or `lossless`.
///
/// A preset file is one JSON object: the keys of ``AudioSettings`` plus an optional `description`, e.g.
/// `{"description": "Speech", "format": "opus", "sampleRate": 48000, "channels": 1, "bitRate": 32000}`.
public struct AudioPreset: Equatable, Sendable {
    /// The name it is looked up by: the file name without `.json`.
    public let name: String
    /// One line that says what the preset is for.
    public let description: String
    /// The settings it stands for, already validated.
    public let settings: AudioSettings

    /// Reads and validates the preset stored at `url`.
    ///
    /// - Throws: ``AudioPresetError`` when the file cannot be read, is not a preset object, or holds
    ///   settings that ``AudioSettings/validate()`` rejects.
    public init(contentsOf url: URL) throws(AudioPresetError) {
        let name = url.deletingPathExtension().lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, reason: "cannot read it")
        }
        let file: PresetFile
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[AudioSettings.additionalKeys] = ["description"]
            file = try decoder.decode(PresetFile.self, from: data)
        } catch {
            throw .unreadable(path: url.path, reason: Self.describe(error))
        }
        do {
            try file.settings.validate()
        } catch {
            throw .invalid(path: url.path, error)
        }
        self.name = name
        self.description = file.description ?? ""
        self.settings = file.settings
    }

    /// The preset called `name`, from the first of ``searchDirectories`` that has `name.json`.
    ///
    /// - Throws: ``AudioPresetError/notFound(name:available:)`` listing the names that do exist, or the
    ///   error of reading the file found.
    public static func named(_ name: String) throws(AudioPresetError) -> AudioPreset {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw .notFound(name: name, available: availableNames())
        }
        for directory in searchDirectories {
            let url = directory.appendingPathComponent(name + ".json")
            if FileManager.default.fileExists(atPath: url.path) { return try AudioPreset(contentsOf: url) }
        }
        throw .notFound(name: name, available: availableNames())
    }

    /// The names of every preset found in ``searchDirectories``, sorted.
    public static func availableNames() -> [String] {
        files().map { $0.deletingPathExtension().lastPathComponent }
    }

    /// The file of every preset ``named(_:)`` finds, sorted by name: for a name in several of
    /// ``searchDirectories``, the first one's (a user's preset hides a built-in one of the same name).
    public static func files() -> [URL] {
        var found: [String: URL] = [:]
        for directory in searchDirectories.reversed() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
                found[String(name.dropLast(".json".count))] = directory.appendingPathComponent(name)
            }
        }
        return found.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Where presets are looked for, first match wins:
    /// 1. `$XDG_CONFIG_HOME/voicememo/presets` (or `~/.config/voicememo/presets`): the user's own;
    /// 2. `share/voicememo-presets` beside the running program's `bin/`, where `make install` and the Debian package
    ///    put them (not `share/voicememo/presets`: with `PREFIX=~/.local` that is inside the memo store);
    /// 3. `Presets/` of the source tree this library was built from.
    public static var searchDirectories: [URL] {
        var directories = [UserDirectories().config.appendingPathComponent("voicememo/presets")]
        // The running program, as the kernel names it: every symbolic link on the way resolved.
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent()
                .appendingPathComponent("../share/voicememo-presets").standardized)
        }
        directories.append(URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("../../../Presets").standardized)
        return directories
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
             DecodingError.valueNotFound(_, let context):
            let key = context.codingPath.last.map { "'\($0.stringValue)': " } ?? ""
            return key + (context.underlyingError.map { _ in "not valid JSON" } ?? context.debugDescription)
        case DecodingError.keyNotFound(let key, _):
            return "missing key '\(key.stringValue)'"
        default:
            return "not valid JSON"
        }
    }
}

/// The JSON shape of a preset file.
private struct PresetFile: Decodable {
    let description: String?
    let settings: AudioSettings

    private enum CodingKeys: String, CodingKey { case description }

    init(from decoder: any Decoder) throws {
        description = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .description)
        settings = try AudioSettings(from: decoder)
    }
}

/// Why a preset could not be loaded; its `description` says what to do.
public enum AudioPresetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No preset of that name exists; `available` lists the ones that do.
    case notFound(name: String, available: [String])
    /// The file could not be read or is not a preset object.
    case unreadable(path: String, reason: String)
    /// The file holds settings that cannot be written.
    case invalid(path: String, AudioSettingsError)

    public var description: String {
        switch self {
        case .notFound(let name, let available):
            "no preset named '\(name)'; available: \(available.isEmpty ? "none" : available.joined(separator: ", "))"
        case .unreadable(let path, let reason):
            // Foundation's reasons end in a full stop; the sentence goes on.
            "preset '\(path)' is not valid: \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason); fix or remove the file"
        case .invalid(let path, let error):
            "preset '\(path)' is not valid: \(error); fix or remove the file"
        }
    }
}
