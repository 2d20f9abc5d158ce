import AudioIO
import FoundationEssentials
import SystemPackage

/// The built-in presets that `make install` put into `share/voicememo/presets` before 0.1.0: with
/// `PREFIX=~/.local` that is `presets/` inside the default memo store, program data among the user's memos (0755, in
/// a store that is 0700). They are installed into `share/voicememo-presets` now, and a store that has the directory
/// loses it on the first run of this version.
///
/// A file named as a built-in preset is the installer's copy and is removed. Any other file in it is one the user
/// added, and moves to their own presets (`~/.config/voicememo/presets`), unless one of that name is already there,
/// when it stays put, and so does the directory: nothing of the user's is ever removed.
enum PresetsInStore {
    /// Moves the presets out of `store`, saying on standard error which of the user's presets moved where.
    static func moveOut(of store: URL) {
        let directory = store.appendingPathComponent("presets", isDirectory: true)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory else {
            return
        }
        let builtInNames = Set(AudioPreset.searchDirectories.dropFirst().flatMap { presetNames(in: $0) })
        // Without the built-in presets to compare with, no file can be told to be the installer's.
        guard !builtInNames.isEmpty else { return }
        let userDirectory = AudioPreset.searchDirectories[0]
        for name in presetNames(in: directory) {
            let file = directory.appendingPathComponent(name)
            if builtInNames.contains(name) {
                try? FileManager.default.removeItem(at: file)
                continue
            }
            let destination = userDirectory.appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: destination.path) else { continue }
            do {
                try FileManager.default.createDirectory(at: userDirectory, withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: file, to: destination)
                say("moved your preset '\(name.dropLast(".json".count))' out of the memo store, into \(userDirectory.path)")
            } catch {
                say("your preset '\(name.dropLast(".json".count))' stays in \(directory.path): it cannot move into \(userDirectory.path)")
            }
        }
        // Only when empty: whatever else is in it is the user's.
        if (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    private static func presetNames(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }

    private static func say(_ line: String) {
        _ = try? FileDescriptor.standardError.writeAll("voicememo: \(line.terminalSafe)\n".utf8)
    }
}
