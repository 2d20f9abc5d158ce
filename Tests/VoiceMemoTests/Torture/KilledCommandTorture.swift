import Foundation
import TestSupport
import Testing

/// `voicememo` killed with SIGKILL at random moments of import, record, rename and delete, as a crash,
/// the out-of-memory killer or a pulled plug would: afterwards the store lists every memo that was
/// complete before, each file it lists is readable by sox, and a memo being recorded is recovered or
/// gone, never half-listed.
@Suite(.timeLimit(.minutes(10)), .tags(.torture)) struct KilledCommandTorture {
    /// The memos `list --json` prints, by id.
    func listed(_ cli: CLI) throws -> [String: [String: Any]] {
        let result = try cli.run("list", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let memos = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]] ?? []
        return Dictionary(memos.map { ($0["id"] as? String ?? "", $0) }) { first, _ in first }
    }

    @Test func everyCompleteMemoSurvivesCommandsKilledAtRandomMoments() throws {
        let cli = try CLI()
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 20, "pinknoise")
        // A microphone for each format, in the layout its recording asks for: 16-bit for WAV and CAF, float for Opus.
        let microphones = ["wav": try ALSATestDevices.microphone(playing: source, channels: 2),
                           "opus": try ALSATestDevices.microphone(playing: source, format: .float32, channels: 2)]
        let formats = ["wav", "caf", "opus"]
        /// The command of kind `command` (0 import, 1 record, 2 rename, 3 delete) in `format`, on `target`.
        func arguments(_ command: Int, _ format: String, _ target: String, _ round: Int) -> [String] {
            switch command {
            case 0: ["import", source, "--title", "Import \(round)", "--format", format]
            case 1: ["record", "--device", microphones[format] ?? microphones["wav"]!, "--duration", "15", "--title", "Record \(round)",
                     "--format", format, "--channels", "2"]
            case 2: ["rename", target, "Renamed \(round)"]
            default: ["delete", target]
            }
        }
        // How long each kind of command takes here, unkilled, at the least of two runs: a kill comes within the
        // first half of that, while the command runs.
        var runtime: [String: Double] = [:]
        for command in 0..<4 {
            for format in formats {
                var fastest = Double.infinity
                for _ in 0..<2 {
                    let target = command >= 2 ? try cli.importTone(title: "Calibration", seconds: 20, channels: 2, format: format) : ""
                    let started = ContinuousClock.now
                    let result = try cli.run(arguments(command, format, target, -1), with: try ALSATestDevices.environment())
                    #expect(result.status == 0, "\(result.standardError)")
                    fastest = min(fastest, (ContinuousClock.now - started) / .seconds(1))
                }
                runtime["\(command) \(format)"] = fastest
            }
        }
        var random = SeededGenerator(seed: 0xDEAD)
        var complete = Set(try listed(cli).keys)
        let rounds = Torture.scale(quick: 12, long: 200)
        var killed = 0
        for round in 0..<rounds {
            // Rename and delete need a memo of the format; while there is none, a record takes their turn.
            let format = formats.randomElement(using: &random)!
            let candidates = try listed(cli).filter { complete.contains($0.key) && $0.value["format"] as? String == format }.keys.sorted()
            let target = candidates.randomElement(using: &random) ?? ""
            let command = target.isEmpty && round % 4 >= 2 ? 1 : round % 4
            let running = try cli.start(arguments(command, format, target, round), with: try ALSATestDevices.environment())
            let delay = Double.random(in: 0...(runtime["\(command) \(format)"]! / 2), using: &random)
            // On this thread, not a task's sleep: with every thread of the test pool busy, a task wakes late.
            usleep(UInt32(delay * 1_000_000))
            guard running.isRunning else {
                // Quicker than when it was timed (the machine was busier then): no kill landed, and this round counts for
                // nothing but a command that must have succeeded. Later ones of its kind are killed sooner.
                let result = running.finish()
                #expect(result.status == 0, "round \(round): \(arguments(command, format, target, round)) \(result.standardError)")
                runtime["\(command) \(format)"]! /= 2
                complete = Set(try listed(cli).keys)
                continue
            }
            running.kill()
            killed += 1

            let memos = try listed(cli)
            // A delete may have gone through before the kill; nothing else may go missing.
            let mayBeGone: Set<String> = command == 3 ? [target] : []
            #expect(complete.subtracting(mayBeGone).isSubset(of: Set(memos.keys)), "round \(round): \(arguments(command, format, target, round))")
            for (id, memo) in memos {
                let state = memo["state"] as? String
                #expect(state == "complete" || state == "recovered", "round \(round): \(id) is \(state ?? "?")")
                let file = try #require(memo["file"] as? String)
                if memo["format"] as? String == "opus" {
                    // A stream cut by a kill was closed when it was recovered: opusinfo finds it whole, and opusdec
                    // decodes what the memo's duration says.
                    let decoded = cli.scratch.path("decoded.wav")
                    let result = try Tool.run("opusdec", ["--quiet", "--rate", "48000", file, decoded])
                    #expect(result.status == 0, "round \(round): \(file) \(result.standardError)")
                    #expect(try Sox.info(decoded).frames == Int(((memo["duration"] as? Double ?? 0) * 48000).rounded()), "round \(round): \(id)")
                    let opusinfo = try Tool.run("opusinfo", [file])
                    #expect(opusinfo.status == 0 && !opusinfo.standardOutput.contains("WARNING"), "round \(round): \(opusinfo.standardOutput)")
                } else {
                    let info = try Tool.run("soxi", ["-s", file])
                    #expect(info.status == 0, "round \(round): \(file) \(info.standardError)")
                    let frames = Double(info.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
                    #expect(frames == ((memo["duration"] as? Double ?? 0) * (memo["sampleRate"] as? Double ?? 0)).rounded(), "round \(round): \(id)")
                }
            }
            complete = Set(memos.keys)
        }
        #expect(killed >= rounds * 3 / 4, "\(killed) of \(rounds) commands were killed while they ran")
        // Once what the killed processes left is older than a live writer's grace, the next command
        // removes it: only memos (and the titles kept beside memos whose files cannot hold them) and what was kept
        // aside remain (the trash, where deleted memos wait 30 days; the index is outside the store), and the
        // memos' change files, which stay, a deleted memo's too (its delete must reach every machine sharing the store).
        for name in try FileManager.default.contentsOfDirectory(atPath: cli.home.path) where name.hasSuffix(".partial") {
            try FileManager.default.setAttributes([.modificationDate: Date() - 60], ofItemAtPath: cli.home.appendingPathComponent(name).path)
        }
        complete = Set(try listed(cli).keys)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
        let strays = names.filter { name in
            !(name == ".trash"
                || name.range(of: #"^[0-9a-f]{12}\.[0-9]+-[0-9a-f]{16}\.change$"#, options: .regularExpression) != nil
                || complete.contains { name.hasPrefix($0 + ".") || name == ".\($0).title" || name == ".\($0).waveform.dat" })
        }
        #expect(strays.isEmpty, "\(strays)")
    }
}
