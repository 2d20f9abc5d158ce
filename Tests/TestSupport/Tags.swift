#if canImport(Testing)
import Foundation
import Testing

/// The groups `make test` runs apart, one `swift test` each, chosen by these tags (`make test-groups` checks that every
/// test runs in exactly one). A suite without any of them runs with the other suites of its test target, on unclocked
/// devices as fast as the CPU goes; a suite (or a single test) declares the one whose reason is its own.
extension Tag {
    /// On the PulseAudio sink (a real clock) or on a device another program holds (the `testbusy` PCM, also on the
    /// real clock, whose tests wait for what the command draws), stopping and continuing a process, or timing a route
    /// change from a card appearing or a jack unplugged: these run after the others, which drive unclocked devices as
    /// fast as the CPU goes and would starve the sound server (or a waiting thread) of the time it keeps. A failure
    /// there is a bug like any other: nothing is run twice.
    @Tag public static var clocked: Self

    /// Playing in real time for long (a 12-s sleep timer, a stalled download) or publishing players on a session bus:
    /// these run last, on their own. On the shared PulseAudio server they would lengthen the line of clocked tests
    /// waiting for their turn, whose wait counts against their time limits; beside the clocked suites, on servers of
    /// their own, they would load the machine while those keep time.
    @Tag public static var player: Self

    /// The torture suites (`Tests/VoiceMemoTests/Torture`) and their rig, which `make torture` runs at full strength:
    /// their tests hold a thread of the test pool (as many threads as cores) for up to a minute or two each, waiting on
    /// the processes they drive; beside the other suites, two of them would leave those suites' waiting tests no
    /// thread to resume on before their time limits. A test that waits a minute on a thread of its own (a live playlist
    /// read for a minute) runs beside them too: their group lasts longer than it, any other group less.
    @Tag public static var torture: Self
}

/// The tags declared here are the ones `Scripts/test-groups.py` chooses the groups by: a tag renamed on one side only
/// would leave its suites in the untagged groups, beside the tests they must not run with.
@Suite struct TagsTests {
    @Test func theScriptChoosesTheGroupsByTheTagsDeclaredHere() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/test-groups.py")
        let line = try #require(try String(contentsOf: script, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("TAGS = ") })
        let named = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        let declared = [Tag.clocked, .player, .torture].map { String(describing: $0).trimmingCharacters(in: ["."]) }
        #expect(Set(named) == Set(declared), "the script's \(named), the declarations' \(declared)")
        #expect(named.count == 3)
    }
}
#endif
