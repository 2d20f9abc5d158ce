import FoundationEssentials
import SystemEdge

/// Ctrl-C, SIGTERM or SIGHUP during a command that writes files in one go (`import`, `export`, `trim`, `enhance`,
/// `rename`…): the hidden `.partial` files it has open, what it was writing, are removed, and it ends as a command
/// stopped by a signal does here (128 plus its number). What it had finished stays: a memo imported before the one it
/// was converting, an edit that had landed. (`record`, `play`, `meter` and `devices` stop gracefully instead, on
/// their own `StopSignals`.)
///
/// The files are found among the process's open descriptors (`/proc/self/fd`), so nothing keeps a list of them: a
/// temporary file is open from the moment it is made until it is renamed into place.
enum InterruptedWrites {
    /// Watches the signals until the observation is released.
    static func watch() -> ProcessSignals.Observation {
        ProcessSignals.observe(StopSignals.signals) { signal in
            for path in openFiles() where isPartial(path) {
                FileNames.removeIgnoringFailure(path)
            }
            CurrentProcess.exit(128 + signal.rawValue)
        }
    }

    /// The paths of the files this process has open.
    private static func openFiles() -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
    }

    /// Whether `path` names a file being written to replace or become another: `.NAME.RANDOM.partial`.
    private static func isPartial(_ path: String) -> Bool {
        let name = path.split(separator: "/").last ?? ""
        return name.hasPrefix(".") && name.hasSuffix(".partial")
    }
}
