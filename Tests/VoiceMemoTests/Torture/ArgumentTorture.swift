import Foundation
import TestSupport
import Testing

/// Every option and argument of every command given values that break parsers: each ends with exit
/// status 0, 1 or 2 (never a crash), a runtime failure says what happened in one line, and nothing
/// outside the store is written.
@Suite(.timeLimit(.minutes(10)), .tags(.torture)) struct ArgumentTorture {
    static let hostileValues = [
        "", " ", "-", "--", "-1", "0", "-0", "nan", "NaN", "inf", "-inf", "1e309", "-1e309", "1e300", "0x10", "1_000",
        "99999999999999999999999", "1.5.2", "½", "١٢", String(repeating: "9", count: 10_000), "a\nb", "\u{1B}[2J\u{1B}[H",
        "../../../../no-such-directory/x", "/dev/zero", "/dev/null", "%s%n%x", "🎙️", String(repeating: "é", count: 5000),
    ]

    /// `command` with `value` in one place, and where a memo is needed, the memo `memo`. Relative export
    /// destinations are taken inside `scratch`, so that nothing lands in the test's working directory.
    static func invocations(memo: String, source: String, scratch: String) -> [[String]] {
        var all: [[String]] = []
        for value in hostileValues {
            all += [
                ["list", "--sort", value],
                ["info", value], ["delete", value], ["rename", value, "New title"], ["rename", memo, value],
                ["export", value, scratch], ["export", memo, value.hasPrefix("/") ? value : "\(scratch)/\(value)"], ["export", memo, scratch, "--format", value],
                ["import", value], ["import", source, "--title", value], ["import", source, "--format", value],
                ["import", source, "--sample-rate", value], ["import", source, "--channels", value],
                ["import", source, "--bit-depth", value], ["import", source, "--bit-rate", value], ["import", source, "--preset", value],
                ["play", value, "--device", "null"], ["play", memo, "--device", value],
                ["play", memo, "--device", "null", "--volume", value], ["play", memo, "--device", "null", "--pan", value],
                ["play", memo, "--device", "null", "--rate", value], ["play", memo, "--device", "null", "--start", value],
                ["play", memo, "--device", "null", "--loops", value], ["play", memo, "--device", "null", "--sleep", value],
                ["record", "--device", "null", "--duration", value], ["record", "--device", value, "--duration", "0.1"],
                ["record", "--device", "null", "--duration", "0.1", "--title", value],
                ["record", "--device", "null", "--duration", "0.1", "--sample-rate", value],
                ["record", "--device", "null", "--duration", "0.1", "--channels", value],
                ["meter", "--device", value],
                ["enhance", value], ["enhance", memo, "--title", value],
                ["waveform", value], ["waveform", memo, "--dat", value.hasPrefix("/") ? value : "\(scratch)/\(value)"],
                ["waveform", memo, "--json", "--bits", value], ["waveform", memo, "--json", "--samples-per-pixel", value],
                ["play", memo, "--device", "null", "--skip-silence", "--start", value],
            ]
        }
        return all
    }

    /// Values that are valid and mean "go on for a very long time": such a run is stopped, not failed.
    static func meansForever(_ arguments: [String]) -> Bool {
        let value = arguments.last ?? ""
        return (arguments.contains("--loops") && value == "-1")
            || (arguments.first == "meter" && arguments.contains("--device") && ["null", "/dev/zero"].contains(value))
    }

    @Test func hostileValuesEndInAStatusAndOneLine() async throws {
        let cli = try CLI()
        let memo = try cli.importTone(title: "Target", seconds: 0.1)
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.1, "sine 440")
        let outside = cli.scratch.path("exports")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let devices = try Set(FileManager.default.contentsOfDirectory(atPath: "/dev"))
        var invocations = Self.invocations(memo: memo, source: source, scratch: outside)
        var random = SeededGenerator(seed: 0xA7C)
        invocations.shuffle(using: &random)
        for arguments in invocations.prefix(Torture.scale(quick: 60, long: invocations.count)) {
            let running = try cli.start(arguments, with: [:])
            let deadline = ContinuousClock.now + .seconds(15)
            while running.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if running.isRunning {
                running.kill()
                #expect(Self.meansForever(arguments), "still running after 15 s: \(arguments.map { String($0.prefix(40)) })")
                continue
            }
            let result = running.finish()
            let shown = arguments.map { String($0.prefix(40)) }
            #expect([0, 1, 2].contains(result.status), "\(shown) ended with \(result.status): \(result.standardError.prefix(300))")
            if result.status == 1 {
                let lines = result.standardError.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: "), "\(shown): \(result.standardError.prefix(300))")
            }
            if result.status == 2 { #expect(!result.standardError.isEmpty, "\(shown)") }
        }
        // Nothing was written outside the store and the exports directory: /dev is as it was.
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: "/dev")) == devices)
        #expect(FileManager.default.fileExists(atPath: "/dev/null") && FileManager.default.fileExists(atPath: "/dev/zero"))
        let list = try cli.run("list", "--json")
        #expect(list.status == 0, "\(list.standardError)")
    }
}
