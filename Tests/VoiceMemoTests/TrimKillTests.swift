import Foundation
import Glibc
import TestSupport
import Testing

/// A trim killed at any point leaves the memo whole: as it was, or trimmed with the memo as it was in the trash. strace
/// kills `voicememo trim` (SIGKILL, the syscall not made) at each call that changes the store's files or makes them
/// durable (link, rename, unlink, fsync, mkdir), one run per call; the next command finds the memo whole and its index
/// telling its true length.
@Suite(.timeLimit(.minutes(5))) struct TrimKillTests {
    static let calls = ["link", "linkat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "fsync", "fdatasync", "mkdir", "mkdirat"]

    @Test func aTrimKilledAtAnyStepLeavesTheOldMemoOrTheNewOneWhole() throws {
        let pristine = try CLI()
        let (id, file) = try TrimTests.importSpeech(pristine, format: "wav")
        let name = URL(fileURLWithPath: file).lastPathComponent
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let samples = try Sox.samples(of: file)
        let trimmed = Array(samples[48000..<120_000])
        let trim = ["trim", id, "--start", "1", "--end", "2.5"]

        /// A store as `pristine` is, for one run.
        func copy() throws -> CLI {
            let cli = try CLI()
            try FileManager.default.copyItem(at: pristine.home, to: cli.home)
            return cli
        }
        // How often the trim makes each call, unkilled.
        let counting = try copy()
        let trace = counting.scratch.path("trace")
        let traced = try Tool.run("strace", ["-f", "-qq", "-o", trace, "-e", "trace=" + Self.calls.joined(separator: ","), CLI.binary] + trim,
                                  environment: counting.environment)
        #expect(traced.status == 0, "\(traced.standardError)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { !$0.contains("resumed>") }
        let counts = Dictionary(grouping: lines.compactMap { line in Self.calls.first { line.contains(" \($0)(") } }, by: { $0 }).mapValues(\.count)
        #expect(counts.values.reduce(0, +) >= 12, "\(counts)")

        var outcomes: [String: Int] = [:]
        for (call, count) in counts.sorted(by: { $0.key < $1.key }) {
            for number in 1...count {
                let cli = try copy()
                let step = "\(call) #\(number)"
                let killed = try Tool.run("strace", ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(call)",
                                                     "-e", "inject=\(call):error=EIO:signal=KILL:when=\(number)", CLI.binary] + trim,
                                          environment: cli.environment)
                #expect(killed.status == SIGKILL || killed.status == 128 + SIGKILL, "\(step): \(killed.status) \(killed.standardError)")
                #expect(!killed.standardOutput.contains("Trimmed"), "\(step): killed before it ended")

                let listed = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]])
                let memo = try #require(listed.first { $0["id"] as? String == id }, "\(step): the memo is listed")
                let file = cli.home.appendingPathComponent(name).path
                let now = try Sox.samples(of: file)
                let duration = try #require(memo["duration"] as? Double)
                let versions = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("trash", "--json").standardOutput.utf8)) as? [[String: Any]])
                if now == samples {
                    #expect(abs(duration - Double(samples.count) / 48000) < 1e-9, "\(step): the index says the old length")
                    #expect(versions.isEmpty, "\(step): nothing in the trash for an edit that did not happen")
                    outcomes["old", default: 0] += 1
                } else {
                    #expect(now == trimmed, "\(step): the memo trimmed, exactly")
                    #expect(duration == 1.5, "\(step): the index says the new length")
                    #expect(versions.count == 1, "\(step): the memo as it was in the trash")
                    #expect(try cli.run("restore", id).status == 0)
                    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "\(step): restored byte for byte")
                    outcomes["new", default: 0] += 1
                }
                let names = try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
                #expect(!names.contains { $0.hasSuffix(".edit") }, "\(step): the edit's mark is gone: \(names)")
            }
        }
        // Kills before the new file replaced the old one leave the old; after it, the new.
        #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes)")
    }
}
