import AudioIO
import Foundation
import TestSupport
import Testing

/// The XDG directories: each `XDG_*` variable (when absolute) first, then `$HOME`, then the password entry's home.
@Suite struct UserDirectoriesTests {
    @Test func eachVariableWinsThenHOMEGivesTheSpecificationsDefaults() {
        let set = UserDirectories(environment: [
            "HOME": "/home/a", "XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k", "XDG_DATA_HOME": "/d",
            "XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/run/user/7",
        ])
        #expect([set.config, set.cache, set.data, set.state].map(\.path) == ["/c", "/k", "/d", "/s"])
        #expect(set.runtime?.path == "/run/user/7")

        // Relative values are ignored, as the specification says; the runtime directory has no default.
        let home = UserDirectories(environment: ["HOME": "/home/a", "XDG_CONFIG_HOME": "relative", "XDG_RUNTIME_DIR": "run"])
        #expect([home.config, home.cache, home.data, home.state].map(\.path)
            == ["/home/a/.config", "/home/a/.cache", "/home/a/.local/share", "/home/a/.local/state"])
        #expect(home.runtime == nil)
    }

    @Test func withoutHOMETheHomeIsThePasswordEntrys() throws {
        // getent reads the same database, independently of this library.
        let entry = try Tool.output("getent", ["passwd", "\(getuid())"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let home = try #require(entry.split(separator: ":", omittingEmptySubsequences: false).dropFirst(5).first)
        #expect(UserDirectories(environment: [:]).home.path == String(home))
        #expect(UserDirectories(environment: ["HOME": ""]).config.path == URL(fileURLWithPath: String(home)).appendingPathComponent(".config").path)
    }
}
