import FoundationEssentials
import SystemEdge

/// Where a user's programs keep their files, by the XDG Base Directory Specification: configuration, cache, data,
/// state and the runtime directory. The one place the library, the memo store and `voicememo` look them up.
///
/// Each comes from its `XDG_*` variable when that holds an absolute path (the specification has relative ones
/// ignored), else from the home directory: `$HOME`, or the password entry's when `HOME` is unset or not an absolute path, so that a
/// program run with `HOME` pointed elsewhere keeps all its files there.
public struct UserDirectories: Sendable {
    /// The environment the directories are read from.
    public let environment: [String: String]

    /// The directories as `environment` (by default the process's) says.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The home directory: `$HOME`, else the password entry's (`getpwuid_r`), else `/`.
    public var home: URL {
        if let home = absolutePath("HOME") { return URL(fileURLWithPath: home, isDirectory: true) }
        return URL(fileURLWithPath: UserAccount.homeDirectory ?? "/", isDirectory: true)
    }

    /// Configuration: `$XDG_CONFIG_HOME`, else `~/.config`.
    public var config: URL { directory("XDG_CONFIG_HOME", else: ".config") }

    /// Files that may be deleted and made again: `$XDG_CACHE_HOME`, else `~/.cache`.
    public var cache: URL { directory("XDG_CACHE_HOME", else: ".cache") }

    /// The user's data: `$XDG_DATA_HOME`, else `~/.local/share`.
    public var data: URL { directory("XDG_DATA_HOME", else: ".local/share") }

    /// State kept between runs that is not worth a backup (histories, a machine's own index): `$XDG_STATE_HOME`,
    /// else `~/.local/state`.
    public var state: URL { directory("XDG_STATE_HOME", else: ".local/state") }

    /// Sockets and other files that live as long as the user's login: `$XDG_RUNTIME_DIR`, which has no default;
    /// nil when it is not set to an absolute path.
    public var runtime: URL? {
        absolutePath("XDG_RUNTIME_DIR").map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    private func directory(_ variable: String, else relativeToHome: String) -> URL {
        if let path = absolutePath(variable) { return URL(fileURLWithPath: path, isDirectory: true) }
        return home.appendingPathComponent(relativeToHome, isDirectory: true)
    }

    /// The variable's value when it is an absolute path.
    private func absolutePath(_ variable: String) -> String? {
        guard let value = environment[variable], value.hasPrefix("/") else { return nil }
        return value
    }
}
