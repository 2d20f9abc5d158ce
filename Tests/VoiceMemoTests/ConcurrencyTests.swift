import Foundation
import TestSupport
import Testing

@Suite struct ConcurrencyTests {
    @Test func eightImportsAtOnceLoseNothingAndTheIndexIsAlwaysWhole() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("a.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let imports = try (0..<8).map { try cli.start("import", cli.scratch.path("a.wav"), "--title", "Memo \($0)") }
        // Read the index as another program would, without the lock, as often as possible while they run.
        var looks = 0
        var failures: [String] = []
        while imports.contains(where: \.isRunning) {
            if let data = cli.index {
                looks += 1
                if (try? JSONSerialization.jsonObject(with: data)) == nil { failures.append(String(decoding: data, as: UTF8.self)) }
            } else if looks > 0 {
                failures.append("the index vanished")
            }
            usleep(200)
        }
        for result in imports.map({ $0.finish() }) { #expect(result.status == 0, "\(result.standardError)") }
        #expect(failures.isEmpty, "\(failures.prefix(1))")
        #expect(looks > 0)
        let memos = try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
        #expect(Set(memos?.compactMap { $0["title"] as? String } ?? []) == Set((0..<8).map { "Memo \($0)" }))
    }
}
