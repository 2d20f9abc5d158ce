import Foundation
import TestSupport
import Testing

/// `voicememo` killed with SIGKILL at random moments of import, record, rename and delete, as a crash,
/// the out-of-memory killer or a pulled plug would: afterwards the store lists every memo that was
/// complete before, each file it lists is readable by sox, and a memo being recorded is recovered or
/// gone, never half-listed.
@Suite(.timeLimit(.minutes(10))) struct KilledCommandTorture {
    /// The memos `list --json` prints, by id.
    func listed(_ cli: CLI) throws -> [String: [String: Any]] {
        let result = try cli.run("list", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let memos = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]] ?? []
        return Dictionary(memos.map { ($0["id"] as? String ?? "", $0) }) { first, _ in first }
    }

    @Test func everyCompleteMemoSurvivesCommandsKilledAtRandomMoments() async throws {
        let cli = try CLI()
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 4, "pinknoise")
        // A microphone for each format, in the layout its recording asks for: 16-bit for WAV and CAF, float for Opus.
        let microphones = ["wav": try ALSATestDevices.microphone(playing: source, channels: 2),
                           "opus": try ALSATestDevices.microphone(playing: source, format: .float32, channels: 2)]
        var random = SeededGenerator(seed: 0xDEAD)
        var complete: Set<String> = [try cli.importTone(title: "Before everything")]
        for round in 0..<Torture.scale(quick: 12, long: 200) {
            // Rename and delete need a memo; while there is none, a record takes their turn.
            let target = Array(complete).sorted().randomElement(using: &random) ?? ""
            let command = target.isEmpty && round % 4 >= 2 ? 1 : round % 4
            let format = ["wav", "caf", "opus"].randomElement(using: &random)!
            let arguments: [String] = switch command {
            case 0: ["import", source, "--title", "Import \(round)", "--format", format]
            case 1: ["record", "--device", microphones[format] ?? microphones["wav"]!, "--duration", "3", "--title", "Record \(round)",
                     "--format", format, "--channels", "2"]
            case 2: ["rename", target, "Renamed \(round)"]
            default: ["delete", target]
            }
            let running = try cli.start(arguments, with: try ALSATestDevices.environment())
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &random)))
            running.kill()

            let memos = try listed(cli)
            // A delete may have gone through before the kill; nothing else may go missing.
            let mayBeGone: Set<String> = command == 3 ? [target] : []
            #expect(complete.subtracting(mayBeGone).isSubset(of: Set(memos.keys)), "round \(round): \(arguments)")
            for (id, memo) in memos {
                let state = memo["state"] as? String
                #expect(state == "complete" || state == "recovered", "round \(round): \(id) is \(state ?? "?")")
                let file = try #require(memo["file"] as? String)
                if memo["format"] as? String == "opus" {
                    // opusdec, not opusinfo: a stream cut by a kill has no end-of-stream page, which opusinfo
                    // warns of (exit 1) as "normal for live streams".
                    let decoded = cli.scratch.path("decoded.wav")
                    let result = try Tool.run("opusdec", ["--quiet", file, decoded])
                    #expect(result.status == 0, "round \(round): \(file) \(result.standardError)")
                } else {
                    let info = try Tool.run("soxi", ["-s", file])
                    #expect(info.status == 0, "round \(round): \(file) \(info.standardError)")
                    let frames = Double(info.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
                    #expect(frames == ((memo["duration"] as? Double ?? 0) * (memo["sampleRate"] as? Double ?? 0)).rounded(), "round \(round): \(id)")
                }
            }
            complete = Set(memos.keys)
        }
        // Once what the killed processes left is older than a live writer's grace, the next command
        // removes it: only memos, the index, its cache, its lock and what was kept aside remain.
        for name in try FileManager.default.contentsOfDirectory(atPath: cli.home.path) where name.hasSuffix(".partial") {
            try FileManager.default.setAttributes([.modificationDate: Date() - 60], ofItemAtPath: cli.home.appendingPathComponent(name).path)
        }
        complete = Set(try listed(cli).keys)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
        let strays = names.filter { name in
            !([".lock", "memos.json", ".memos.cache"].contains(name) || name.hasPrefix("memos.json.broken-") || complete.contains { name.hasPrefix($0 + ".") })
        }
        #expect(strays.isEmpty, "\(strays)")
    }
}
