import Foundation
import TestSupport
import Testing

/// The README's block of `voicememo` commands (the one after ``marker``), run as it is written, in order, against one
/// private store: each line does what its comment says, and a line without a check here (or a check without its line)
/// fails, as trycmd fails a Rust CLI's examples; a command elsewhere in the README must be a line of the block. What a
/// test must substitute, it does: the README's id prefixes (3f2a, 9c1e, 77b0) are the memos the rig seeds before the
/// block (with Lesson, which the block plays but never makes); `~` is a home of the test's; `pulse` is a PulseAudio
/// server of the test's own; a line with no device plays into a file (`file:'PATH',raw`) and records from a file
/// microphone (``ALSATestDevices``); example.com is a local nginx, radio.example a local Icecast-style station
/// (``IcecastServer``); the session bus is a private one. Commands that run
/// until stopped are stopped once they are seen running.
@Suite(.serialized, .timeLimit(.minutes(2)), .tags(.player)) struct ReadmeCommandTests {
    /// How a line of the block is run in the rig, and what is checked of it.
    typealias Check = @Sendable (Rig) async throws -> Void

    /// What marks the README's block of `voicememo` commands: the line before it.
    static let marker = "<!-- ReadmeCommandTests runs every line of the next block and checks what its comment says. -->"

    /// The README's ```` ```sh ```` blocks, each as its lines without their `# comment`s, and whether `marker` is the
    /// line before it.
    static func readmeBlocks() throws -> [(marked: Bool, commands: [String])] {
        let readme = try String(contentsOf: Rig.packageDirectory.appendingPathComponent("README.md"), encoding: .utf8)
        let pieces = readme.components(separatedBy: "```sh\n")
        return zip(pieces, pieces.dropFirst()).map { before, piece in
            let block = piece.components(separatedBy: "```")[0]
            let commands = block.split(separator: "\n").map { line in
                let command = line.range(of: " # ").map { line[..<$0.lowerBound] } ?? line[...]
                return command.trimmingCharacters(in: .whitespaces)
            }
            return (before.hasSuffix(marker + "\n"), commands)
        }
    }

    /// The lines of the README's block of `voicememo` commands, each without its `# comment`.
    static func readmeCommands() throws -> [String] {
        let marked = try readmeBlocks().filter(\.marked)
        try #require(marked.count == 1, "the README's one block of commands, after the line \(marker)")
        return marked[0].commands
    }

    @Test func everyLineOfTheREADMEsBlockHasACheckAndEveryCheckItsLine() throws {
        let commands = try Self.readmeCommands()
        #expect(commands.count >= 40, "\(commands)")
        let checked = Self.table.map(\.command)
        for command in commands where !checked.contains(command) {
            Issue.record("The README's `\(command)` has no check in ReadmeCommandTests.table")
        }
        for command in checked where !commands.contains(command) {
            Issue.record("ReadmeCommandTests.table checks `\(command)`, which the README no longer has")
        }
        #expect(Set(checked).count == checked.count, "one check per line")
    }

    /// A newcomer's README: a first section of at most 40 lines that gets them recording and playing, before the
    /// reference, and a section for what goes wrong.
    @Test func theREADMEStartsWithFiveMinutesOfAtMost40LinesAndHasTroubleshooting() throws {
        let readme = try String(contentsOf: Rig.packageDirectory.appendingPathComponent("README.md"), encoding: .utf8)
        let sections = readme.components(separatedBy: "\n## ").dropFirst().map { $0.split(separator: "\n", omittingEmptySubsequences: false) }
        let first = try #require(sections.first)
        #expect(first.first == "The first five minutes", "\(sections.map { $0.first ?? "" })")
        #expect(first.count <= 40, "\(first.count) lines")
        #expect(first.joined().contains("voicememo record") && first.joined().contains("voicememo play"))
        let titles = sections.map { String($0.first ?? "") }
        let troubleshooting = try #require(titles.firstIndex(of: "Troubleshooting"), "\(titles)")
        #expect(troubleshooting < titles.firstIndex(of: "The command line")!, "before the reference")
    }

    @Test func everyCommandElsewhereInTheREADMEIsALineOfTheBlock() throws {
        // The README's first examples repeat lines of the block, which the test below runs and checks.
        let commands = Set(try Self.readmeCommands())
        let elsewhere = try Self.readmeBlocks().filter { !$0.marked }.flatMap(\.commands).filter { $0.contains("voicememo ") }
        #expect(!elsewhere.isEmpty, "the README's examples")
        for command in elsewhere where !commands.contains(command) {
            Issue.record("The README's `\(command)` is not a line of its block of commands, which ReadmeCommandTests runs")
        }
    }

    @Test func theREADMEsCommandsDoWhatTheirCommentsSay() async throws {
        try await PulseAudioServer.own { server in
            let rig = try Rig(server: server)
            let checks = Dictionary(Self.table.map { ($0.command, $0.check) }) { first, _ in first }
            for command in try Self.readmeCommands() {
                guard let check = checks[command] else { continue }  // the test above reports it
                print("README: \(command)")
                try await check(rig)
            }
        }
    }

    /// The checks, keyed by the README's command text.
    static let table: [(command: String, check: Check)] = [
        ("voicememo record --title \"Standup\"", { rig in
            // Until q, with a live meter: on a terminal, from the PulseAudio sink's monitor (a real clock) while a 1 kHz
            // tone plays into it for a second; m drops a marker, then a pause, then q.
            let sine = try rig.server.playSine(frequency: 1000)
            let terminal = try PseudoTerminal(
                CLI.binary, ["record", "--title", "Standup", "--device", "pulse"], environment: try rig.environment())
            func last() -> (head: String, elapsed: Double)? {
                TerminalDisplayTests.frames(terminal.screen, height: 2).last.flatMap { MarkedRecordingTests.recording($0, title: "Standup") }
            }
            #expect(terminal.read(until: { _ in (last()?.elapsed ?? 0) >= 0.5 }, timeout: 10), "\(terminal.screen.suffix(300))")
            #expect(terminal.screen.contains("dBFS"), "a live meter: \(terminal.screen.suffix(300))")
            terminal.type("m")
            #expect(terminal.read(until: { _ in last()?.head == "▼ MARKER 1" }, timeout: 5), "\(terminal.screen.suffix(300))")
            #expect(terminal.read(until: { _ in (last()?.elapsed ?? 0) >= 1.2 }, timeout: 10))
            sine.stop()
            #expect(terminal.read(until: { _ in (last()?.elapsed ?? 0) >= 2.6 }, timeout: 10))
            terminal.type("q")
            #expect(terminal.waitForExit(timeout: 10) == 0)
            let memo = try rig.memo("Standup")
            let file = try #require(memo["file"] as? String)
            let info = try Sox.info(file)
            #expect(file.hasSuffix(".wav") && info.bits == 16 && info.channels == 1 && memo["state"] as? String == "complete")
        }),
        ("voicememo record --preset voice --duration 30", { rig in
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo record --preset voice --duration 30", appending: ["--device", rig.floatMicrophone])
                #expect(result.status == 0, "\(result.standardError)")
            }
            let memo = try #require(made.first)
            #expect(made.count == 1 && memo["format"] as? String == "opus" && memo["duration"] as? Double == 30, "\(made)")
            #expect(try Tool.run("opusinfo", [try #require(memo["file"] as? String)]).status == 0)
        }),
        ("voicememo record --enhance", { rig in
            // Until q; here for 3 s of a microphone that hears a fan (brown noise) for 1.5 s, then speech over it.
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo record --enhance", appending: ["--duration", "3", "--device", rig.noisyMicrophone])
                #expect(result.status == 0, "\(result.standardError)")
            }
            let file = try #require(made.first?["file"] as? String)
            #expect(made.count == 1 && made.first?["state"] as? String == "complete")
            let heard = try rig.rms(of: rig.work.path("noisy.wav"), from: 0.75, to: 1.5)
            let kept = try rig.rms(of: file, from: 0.75, to: 1.5)
            #expect(kept < heard - 6, "the fan suppressed: \(heard) dBFS in, \(kept) dBFS recorded")
        }),
        ("voicememo enhance 3f2a", { rig in
            let original = try Data(contentsOf: URL(fileURLWithPath: try #require(rig.memo(rig.id("3f2a"))["file"] as? String)))
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo enhance 3f2a")
                #expect(result.status == 0, "\(result.standardError)")
            }
            #expect(made.map { $0["title"] as? String } == ["Talk (enhanced)"])
            let file = try #require(rig.memo(rig.id("3f2a"))["file"] as? String)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "the original stays")
        }),
        ("voicememo record --format aac --artist \"Team A\"", { rig in
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo record --format aac --artist \"Team A\"",
                                           appending: ["--duration", "2", "--device", rig.floatMicrophone])
                #expect(result.status == 0, "\(result.standardError)")
            }
            let memo = try #require(made.first)
            let file = try #require(memo["file"] as? String)
            #expect(memo["format"] as? String == "aac" && file.hasSuffix(".m4a") && memo["artist"] as? String == "Team A")
            #expect(try FFprobe.codec(of: file).codec == "aac" && FFprobe.codec(of: file).profile == "LC")
            let rate = try Tool.output("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=bit_rate", "-of", "csv=p=0", file])
            #expect((56000...72000).contains(Int(rate.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0), "64 kb/s: \(rate)")
            let id = try #require(memo["id"] as? String)
            #expect(try rig.lines("list").contains { $0.hasPrefix(id) && $0.contains(" aac ") })
        }),
        ("voicememo info Standup --json", { rig in
            let result = try rig.shell("voicememo info Standup --json")
            let markers = try #require(try rig.cli.json(result)["markers"] as? [[String: Any]])
            #expect(markers.count == 1, "the m typed while recording")
            for marker in markers {
                let frame = try #require(marker["frame"] as? Int)
                // A marker dropped with m has no name; one imported or renamed has.
                let time = try #require(marker["time"] as? Double)
                #expect(abs(time - Double(frame) / 48000) < 1e-9 && (marker["name"] == nil || marker["name"] is String), "\(marker)")
            }
        }),
        ("voicememo meter", { rig in
            // Until q or Ctrl-C; here for half a second of the PulseAudio sink's monitor.
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo meter", appending: ["--device", "pulse", "--duration", "0.5"])
                #expect(result.status == 0, "\(result.standardError)")
                let lines = result.standardOutput.split(separator: "\n")
                #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("0:00.") && $0.contains("peak") && $0.contains("dBFS") },
                        "\(result.standardOutput)")
            }
            #expect(made.isEmpty, "nothing recorded")
        }),
        ("voicememo import talk.flac --preset voice", { rig in
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo import talk.flac --preset voice")
                #expect(result.status == 0, "\(result.standardError)")
            }
            let memo = try #require(made.first)
            #expect(memo["format"] as? String == "opus" && memo["channels"] as? Int == 1 && memo["sampleRate"] as? Int == 48000)
            let info = try Tool.output("opusinfo", [try #require(memo["file"] as? String)])
            let line = try #require(info.split(separator: "\n").first { $0.contains("Average bitrate:") })
            let rate = try #require(Double(line.split(separator: " ").dropLast().last ?? ""))
            #expect((24...40).contains(rate), "about 32 kb/s: \(line)")
        }),
        ("voicememo import lecture.wav --title \"Physics 101\" --json", { rig in
            let result = try rig.shell("voicememo import lecture.wav --title \"Physics 101\" --json")
            let memo = try rig.cli.json(result)
            #expect(result.status == 0 && memo["title"] as? String == "Physics 101" && memo["state"] as? String == "complete")
            #expect(abs((memo["duration"] as? Double ?? 0) - rig.lectureSeconds) < 0.001)
        }),
        ("voicememo import ~/Phone/Recordings call.amr", { rig in
            // Debian's ffmpeg has no AMR encoder: the rig cannot make an AMR file, so call.amr stands for a phone's
            // AAC call here (call.m4a), beside a directory of three recordings, one of them two folders down.
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo import ~/Phone/Recordings call.m4a")
                #expect(result.status == 0, "\(result.standardError)")
                let lines = result.standardOutput.split(separator: "\n")
                #expect(lines.filter { $0.hasPrefix("Imported “") }.count == 4 && lines.last == "Imported 4 of 4 files.",
                        "a line each: \(result.standardOutput)")
            }
            #expect(Set(made.compactMap { $0["title"] as? String }.map { $0.lowercased() }).count == 4, "\(made)")
        }),
        ("ffmpeg -i talk.webm -f wav - | voicememo import -", { rig in
            let made = try rig.newMemos {
                let result = try rig.shell("ffmpeg -loglevel error -i talk.webm -f wav - | voicememo import -")
                #expect(result.status == 0, "\(result.standardError)")
            }
            #expect(made.map { $0["title"] as? String } == ["Talk on the web"], "titled from its tags: \(made)")
        }),
        ("voicememo export \"Physics 101\" ~/physics.opus", { rig in
            #expect(try rig.shell("voicememo export \"Physics 101\" ~/physics.opus").status == 0)
            let file = rig.home.appendingPathComponent("physics.opus").path
            #expect(try Tool.run("opusinfo", [file]).status == 0)
            let audio = try FFprobe.audio(of: file)
            #expect(abs(Double(audio.frames) / Double(audio.rate) - rig.lectureSeconds) < 0.01)
        }),
        ("voicememo export 3f2a ~/Desktop --format wav", { rig in
            #expect(try rig.shell("voicememo export 3f2a ~/Desktop --format wav").status == 0)
            let desktop = rig.home.appendingPathComponent("Desktop")
            let names = try FileManager.default.contentsOfDirectory(atPath: desktop.path)
            #expect(names.count == 1 && names.allSatisfy { $0.hasSuffix(".wav") }, "\(names)")
            let info = try Sox.info(desktop.appendingPathComponent(try #require(names.first)).path)
            #expect(abs(Double(info.frames) / info.rate - (try rig.duration(rig.id("3f2a")))) < 0.001)
        }),
        ("voicememo export 3f2a - --format flac | flac -t -", { rig in
            // The reference FLAC tool is not installed here: sox reads the stream instead, all of it.
            let result = try rig.shell("voicememo export 3f2a - --format flac | sox -t flac - talk-check.wav")
            #expect(result.status == 0, "\(result.standardError)")
            let info = try Sox.info(rig.work.path("talk-check.wav"))
            #expect(abs(Double(info.frames) / info.rate - (try rig.duration(rig.id("3f2a")))) < 0.001)
        }),
        ("voicememo export \"Physics 101\" fast.opus --rate 1.5", { rig in
            #expect(try rig.shell("voicememo export \"Physics 101\" fast.opus --rate 1.5").status == 0)
            let audio = try FFprobe.audio(of: rig.work.path("fast.opus"))
            let seconds = Double(audio.frames) / Double(audio.rate)
            #expect(abs(seconds - rig.lectureSeconds / 1.5) < 0.02, "\(seconds) s of \(rig.lectureSeconds) s")
        }),
        ("voicememo list --sort title", { rig in
            let table = try rig.shell("voicememo list --sort title").standardOutput.split(separator: "\n")
            let sorted = try rig.memos("--sort", "title")
            #expect(table.first?.hasPrefix("ID") == true && table.count == sorted.count + 1, "\(table)")
            #expect(table.dropFirst().map { String($0.prefix(12)) } == sorted.compactMap { $0["id"] as? String })
            let titles = sorted.compactMap { $0["title"] as? String }
            #expect(zip(titles, titles.dropFirst()).allSatisfy { $0.caseInsensitiveCompare($1) != .orderedDescending }, "\(titles)")
        }),
        ("voicememo info 3f2a", { rig in
            let lines = try rig.shell("voicememo info 3f2a").standardOutput
            for field in ["Talk", "opus", "dBFS", "LUFS", "Waveform:"] { #expect(lines.contains(field), "\(field): \(lines)") }
        }),
        ("voicememo waveform 3f2a --dat talk.dat", { rig in
            #expect(try rig.shell("voicememo waveform 3f2a --dat talk.dat").status == 0)
            let bytes = try Data(contentsOf: rig.work.file("talk.dat"))
            func field(_ offset: Int) -> Int32 { bytes.subdata(in: offset..<(offset + 4)).withUnsafeBytes { $0.load(as: Int32.self) } }
            // audiowaveform's doc/DataFormat.md: version 1, flags (0: 16 bits), rate, frames per point, points.
            #expect(field(0) == 1 && field(4) == 0 && field(8) == 48000 && bytes.count == 20 + Int(field(16)) * 4)
        }),
        ("voicememo list --sort loudness", { rig in
            let table = try rig.shell("voicememo list --sort loudness").standardOutput.split(separator: "\n")
            #expect(table.first?.contains("LUFS") == true, "\(table)")
            let loudness = try rig.memos().reduce(into: [String: Double]()) { found, memo in
                found[memo["id"] as? String ?? ""] = (memo["loudness"] as? [String: Any])?["integrated"] as? Double ?? -.infinity
            }
            let listed = table.dropFirst().map { loudness[String($0.prefix(12))] ?? .nan }
            #expect(listed.count == loudness.count && listed == listed.sorted(by: >), "loudest first: \(listed)")
        }),
        ("voicememo play 3f2a 9c1e 77b0", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play 3f2a 9c1e 77b0", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            let playing = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("Playing") }
            #expect(playing.map { $0.split(separator: "”")[0].dropFirst(9) } == ["Talk", "Tone", "Chime"], "\(playing)")
            let seconds = try ["3f2a", "9c1e", "77b0"].map { try rig.duration(rig.id($0)) }.reduce(0, +)
            #expect(try rig.played(speaker.file).count / 2 >= Int(seconds * 48000), "all three, one after another")
        }),
        ("voicememo play 3f2a 9c1e --together --pan -0.5", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play 3f2a 9c1e --together --pan -0.5", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            let played = try rig.played(speaker.file)
            let left = played.enumerated().filter { $0.offset % 2 == 0 }.map { abs(Double($0.element)) }.reduce(0, +)
            let right = played.enumerated().filter { $0.offset % 2 == 1 }.map { abs(Double($0.element)) }.reduce(0, +)
            #expect(right > 0 && left > 1.5 * right, "panned left: \(left) against \(right)")
        }),
        ("voicememo play \"Physics 101\" --loops -1 --device pulse", { rig in
            let play = try rig.start("voicememo play \"Physics 101\" --loops -1 --device pulse")
            defer { if play.isRunning { play.kill() } }
            #expect(play.nextLine()?.hasPrefix("Playing “Physics 101”") == true)
            try await Task.sleep(for: .seconds(rig.lectureSeconds + 0.7))
            #expect(play.isRunning, "still playing past the memo's end")
            play.send(SIGINT)
            #expect(play.finish().status == 130, "until Ctrl-C")
        }),
        ("voicememo play \"Physics 101\" --rate 2.5", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play \"Physics 101\" --rate 2.5", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            let sound = try rig.soundingSeconds(speaker.file)
            #expect(abs(sound - rig.lectureSeconds / 2.5) < 0.1, "\(sound) s")
        }),
        ("voicememo play Standup --rate 1.1 --pitch varispeed", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play Standup --rate 1.1 --pitch varispeed", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            // The 1 kHz tone recorded at the start of Standup comes out 10 % higher.
            let left = try rig.played(speaker.file).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            let first = try #require(left.firstIndex { $0 != 0 })
            let tone = left[(first + 2400)..<(first + 2400 + 9600)]
            let hertz = Double(zip(tone, tone.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count) / 2 / 0.2
            #expect(abs(hertz - 1100) < 20, "\(hertz) Hz")
        }),
        ("voicememo play Lesson --start 12 --end 30 --loops -1", { rig in
            let speaker = rig.speaker()
            let play = try rig.start("voicememo play Lesson --start 12 --end 30 --loops -1", appending: ["--device", speaker.device])
            defer { if play.isRunning { play.kill() } }
            let range = Array(try Sox.samples(of: rig.work.path("lesson.wav"))[(2 * 12 * 48000)..<(2 * 30 * 48000)])
            // Unclocked, the file fills fast: twice the range and a little more, then Ctrl-C.
            #expect(try await eventually(within: 20) { (try? FileManager.default.attributesOfItem(atPath: speaker.file)[.size] as? Int) ?? 0 > 4 * (2 * range.count + 96000) })
            #expect(play.isRunning, "again and again")
            play.send(SIGINT)
            #expect(play.finish().status == 130)
            let played = try rig.played(speaker.file)
            let first = try #require(played.firstIndex { $0 != 0 }) / 2 * 2
            #expect(Array(played[first...].prefix(2 * range.count)) == range + range, "0:12–0:30 twice, to the frame, no gap")
        }),
        ("voicememo play \"Physics 101\" --sleep 20m", { rig in
            // A sleep timer of 20 minutes is not waited for: it starts, plays, and Ctrl-C stops it. On the PulseAudio
            // sink, not a file: unclocked, the short lecture would end before it could be seen playing.
            let play = try rig.start("voicememo play \"Physics 101\" --sleep 20m", appending: ["--device", "pulse"])
            defer { if play.isRunning { play.kill() } }
            #expect(play.nextLine()?.hasPrefix("Playing “Physics 101”") == true)
            // Half of the lecture's 1.3 s, on this thread: an await could resume seconds late on a loaded run, past its end.
            usleep(500_000)
            #expect(play.isRunning)
            play.send(SIGINT)
            #expect(play.finish().status == 130)
        }),
        ("voicememo play 3f2a 9c1e --normalize", { rig in
            let result = try rig.shell("voicememo play 3f2a 9c1e --normalize", appending: ["--device", rig.speaker().device])
            #expect(result.status == 0, "\(result.standardError)")
            let playing = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("Playing") }
            // At -16 LUFS, or as near as the true peak allows, saying so.
            #expect(playing.count == 2 && playing.allSatisfy { $0.contains(" at -16.0 LUFS (") || $0.contains(" LUFS, not -16.0 (") },
                    "\(playing)")
        }),
        ("voicememo play Standup --skip-silence", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play Standup --skip-silence", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            // The tone, then the pause of more than a second after it cut to 0.2 s: shorter than the memo.
            let frames = try rig.played(speaker.file).count / 2
            #expect(Double(frames) / 48000 < (try rig.duration("Standup")) - 0.5, "\(frames) frames")
        }),
        ("playerctl -p voicememo play-pause", { rig in
            let play = try rig.start("voicememo play 3f2a --no-meter", appending: ["--device", "pulse"])
            defer { if play.isRunning { play.kill() } }
            func status() throws -> String {
                try rig.shell("playerctl -p voicememo status").standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(try await eventually { try status() == "Playing" })
            #expect(try rig.shell("playerctl -p voicememo play-pause").status == 0)
            #expect(try await eventually { try status() == "Paused" })
            #expect(play.isRunning)
            play.send(SIGINT)
            #expect(play.finish().status == 130)
        }),
        ("voicememo play Standup ~/Downloads/x.m4a", { rig in
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo play Standup ~/Downloads/x.m4a", appending: ["--device", rig.speaker().device])
                #expect(result.status == 0, "\(result.standardError)")
                let playing = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("Playing") }
                #expect(playing.count == 2 && playing[0].hasPrefix("Playing “Standup”"), "\(playing)")
            }
            #expect(made.isEmpty, "not imported")
        }),
        ("voicememo play https://example.com/talk.opus", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play https://example.com/talk.opus", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try rig.played(speaker.file).contains { $0 != 0 })
            #expect(rig.http.bodyBytes() > 0)
        }),
        ("voicememo import https://example.com/talk.opus", { rig in
            let downloaded = rig.http.bodyBytes()
            let made = try rig.newMemos {
                let result = try rig.shell("voicememo import https://example.com/talk.opus")
                #expect(result.status == 0, "\(result.standardError)")
            }
            #expect(made.count == 1 && made.first?["format"] as? String == "opus")
            #expect(rig.http.bodyBytes() == downloaded, "play had it all: nothing downloaded again")
        }),
        ("voicememo play https://example.com/auth/talk.opus --header \"Authorization: Bearer $TOKEN\"", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell(
                "voicememo play https://example.com/auth/talk.opus --header \"Authorization: Bearer $TOKEN\"", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try rig.played(speaker.file).contains { $0 != 0 })
            let signedIn = rig.http.requests().filter { $0.path == "/auth/talk.opus" }
            #expect(!signedIn.isEmpty && signedIn.allSatisfy { $0.status == 206 && $0.authorization == rig.http.authorization }, "\(signedIn)")
        }),
        ("voicememo play http://radio.example/stream", { rig in
            let speaker = rig.speaker()
            let play = try rig.start("voicememo play http://radio.example/stream", appending: ["--device", speaker.device])
            defer { if play.isRunning { play.kill() } }
            #expect(play.nextLine()?.hasPrefix("Playing “stream” (live) on ") == true)
            #expect(play.nextLine() == "Now playing: Song A")
            #expect(play.isRunning, "until stopped")
            play.send(SIGINT)
            #expect(play.finish().status == 130)
            #expect(try rig.played(speaker.file).contains { $0 != 0 })
        }),
        ("voicememo play https://example.com/talk.m3u8", { rig in
            let speaker = rig.speaker()
            let result = try rig.shell("voicememo play https://example.com/talk.m3u8", appending: ["--device", speaker.device])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try rig.played(speaker.file).contains { $0 != 0 })
            #expect(rig.http.requests().contains { $0.path.hasSuffix(".ts") }, "its segments came through the cache")
        }),
        ("voicememo cache", { rig in
            let result = try rig.shell("voicememo cache")
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("ADDRESS") == true, "\(lines)")
            #expect(lines.contains { $0.hasPrefix(rig.http.url("talk.opus").absoluteString + " ") && $0.contains("100 %") }, "\(lines)")
            #expect(lines.last?.hasSuffix(" on disk, of at most 1G.") == true, "\(lines)")
        }),
        ("voicememo cache --clear", { rig in
            let result = try rig.shell("voicememo cache --clear")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.wholeMatch(of: #/Removed \d+ address(es)? from the cache, freeing [\d.]+ [KM]B\.\n/#) != nil,
                    "\(result.standardOutput)")
            #expect(try rig.shell("voicememo cache").standardOutput == "The cache is empty; it keeps at most 1G.\n")
        }),
        ("voicememo cache --set-size 2G", { rig in
            let result = try rig.shell("voicememo cache --set-size 2G")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("The cache keeps at most 2G from now on"), "\(result.standardOutput)")
            let setting = rig.cli.configHome.appendingPathComponent("voicememo/cache-size")
            #expect(try String(contentsOf: setting, encoding: .utf8) == "2G\n")
            #expect(try rig.shell("voicememo cache").standardOutput == "The cache is empty; it keeps at most 2G.\n")
        }),
        ("voicememo export 3f2a loud.opus --normalize -16", { rig in
            let memo = try rig.memo(rig.id("3f2a"))
            #expect(try rig.shell("voicememo export 3f2a loud.opus --normalize -16").status == 0)
            let target = rig.work.path("loud.opus")
            #expect(try FFprobe.packetHashes(of: target) == FFprobe.packetHashes(of: try #require(memo["file"] as? String)),
                    "packets as they are")
            let integrated = try #require((memo["loudness"] as? [String: Any])?["integrated"] as? Double)
            let header = try #require(try Tool.output("opusinfo", [target]).split(separator: "\n").first { $0.contains("Playback gain:") })
            let gain = try #require(Double(header.split(separator: " ").dropLast().last ?? ""))
            let truePeak = try #require((memo["loudness"] as? [String: Any])?["truePeak"] as? Double)
            // -16 LUFS unless that would take its true peak over -1 dBTP (speech's peaks stand far above its loudness).
            let expected = min(-16 - integrated, -1 - truePeak)
            #expect(abs(gain - expected) <= 1.0 / 256, "\(header) for \(expected) dB")
            #expect(abs(try LoudnessCommandTests.ffmpeg(target).integrated - (integrated + expected)) < 1)
        }),
        ("voicememo rename 3f2a \"Physics 101, week 2\"", { rig in
            let file = try #require(rig.memo(rig.id("3f2a"))["file"] as? String)
            let packets = try FFprobe.packetHashes(of: file)
            #expect(try rig.shell("voicememo rename 3f2a \"Physics 101, week 2\"").status == 0)
            #expect(try rig.memo(rig.id("3f2a"))["title"] as? String == "Physics 101, week 2")
            #expect(try FFprobe.tags(of: file).tags["title"] == "Physics 101, week 2", "inside the file too")
            #expect(try FFprobe.packetHashes(of: file) == packets)
        }),
        ("voicememo trim 3f2a --start 4.5 --end 1:02", { rig in
            let result = try rig.shell("voicememo trim 3f2a --start 4.5 --end 1:02")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(abs(try rig.duration(rig.id("3f2a")) - 57.5) < 0.0001, "0:04.5–1:02.0")
        }),
        ("voicememo undo", { rig in
            let result = try rig.shell("voicememo undo")
            #expect(result.status == 0 && result.standardOutput.contains("before the trim"), "\(result.standardOutput)\(result.standardError)")
            #expect(abs(try rig.duration(rig.id("3f2a")) - rig.talkSeconds) < 0.001)
        }),
        ("voicememo restore 3f2a", { rig in
            // The last edit standing is the rename: the memo before it.
            let result = try rig.shell("voicememo restore 3f2a")
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(try rig.memo(rig.id("3f2a"))["title"] as? String == "Talk", "\(result.standardOutput)")
        }),
        ("voicememo trash", { rig in
            let lines = try rig.shell("voicememo trash").standardOutput.split(separator: "\n")
            #expect(lines.dropFirst().contains { $0.contains("Old idea") && $0.contains(" days") }, "\(lines)")
        }),
        ("voicememo delete \"Physics 101\" 9c1e", { rig in
            let physics = try #require(rig.memo("Physics 101")["id"] as? String)
            let tone = try rig.id("9c1e")
            #expect(try rig.shell("voicememo delete \"Physics 101\" 9c1e").status == 0)
            let ids = try rig.memos().compactMap { $0["id"] as? String }
            #expect(!ids.contains(physics) && !ids.contains(tone))
            let trash = try rig.lines("trash")
            #expect(trash.contains { $0.hasPrefix(physics) && $0.contains("30 days") } && trash.contains { $0.hasPrefix(tone) }, "\(trash)")
        }),
        ("voicememo presets", { rig in
            let text = try rig.shell("voicememo presets").standardOutput
            for name in ["voice", "music", "lossless"] { #expect(text.contains(name), "\(text)") }
        }),
        ("voicememo devices", { rig in
            let result = try rig.shell("voicememo devices")
            #expect(result.status == 0 && result.standardOutput.contains("default"), "\(result.standardOutput)")
        }),
        ("voicememo devices --watch --json", { rig in
            let watch = try rig.start("voicememo devices --watch --json")
            defer { if watch.isRunning { watch.kill() } }
            let line = try #require(watch.nextLine())
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any], "\(line)")
            #expect(watch.isRunning, "then one line per event")
            watch.send(SIGINT)
            #expect(watch.finish().status == 0)
        }),
        ("source <(voicememo --generate-completion-script bash)", { rig in
            let prefix = String(try rig.id("77b0").prefix(3))
            let result = try rig.shell("""
                source <(voicememo --generate-completion-script bash)
                COMP_WORDS=(voicememo play \(prefix)); COMP_CWORD=2; COMP_LINE='voicememo play \(prefix)'; COMP_POINT=${#COMP_LINE}
                _voicememo voicememo \(prefix) play; printf '%s\\n' "${COMPREPLY[@]}"
                COMP_WORDS=(voicememo ren); COMP_CWORD=1; COMP_LINE='voicememo ren'; COMP_POINT=${#COMP_LINE}
                _voicememo voicememo ren voicememo; printf '%s\\n' "${COMPREPLY[@]}"
                """)
            #expect(result.status == 0, "\(result.standardError)")
            let offered = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(offered.contains(try rig.id("77b0")) && offered.contains("rename"), "\(offered)")
        }),
    ]
}

/// The world the README's commands run in: a store, a home with the files the README names, a working directory for the
/// relative ones, the memos it assumes, a PulseAudio server, a session bus and a web server.
final class Rig: @unchecked Sendable {
    let cli: CLI
    let server: PulseAudioServer
    let bus: SessionBus
    let http: HTTPServer
    /// The README's radio station, `http://radio.example/stream`.
    let station: IcecastServer
    let home: URL
    let work: ScratchDirectory
    /// The README's id prefixes, and the ids of the memos they stand for.
    private var ids: [String: String] = [:]
    private(set) var talkSeconds = 0.0
    private(set) var lectureSeconds = 0.0
    /// Microphones that capture the talk as floats (Opus and AAC recordings ask for them), and a fan then speech.
    private(set) var floatMicrophone = ""
    private(set) var noisyMicrophone = ""

    static let packageDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init(server: PulseAudioServer) throws {
        self.server = server
        cli = try CLI()
        bus = try SessionBus()
        work = try ScratchDirectory()
        home = cli.scratch.file("home")
        for folder in ["Desktop", "Downloads", "Phone/Recordings/2024/May"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // Speech with pauses: the talk, 70 s or more of it (trim keeps 0:04.5–1:02), and the lecture.
        let spoken = work.path("spoken.wav")
        try Tool.output("espeak-ng", ["-w", spoken, "Welcome to the talk. Today we record, play and trim memos, and nothing is encoded again."])
        let sentence = try Sox.info(spoken)
        let repeats = Int((70 / (Double(sentence.frames) / sentence.rate + 1)).rounded(.up))
        try Tool.output("sox", [spoken, "-r", "44100", "-c", "2", work.path("talk.flac"), "pad", "0", "1", "repeat", "\(repeats)"])
        let talk = try Sox.info(work.path("talk.flac"))
        talkSeconds = Double(talk.frames) / talk.rate
        try Tool.output("espeak-ng", ["-w", work.path("lecture-spoken.wav"), "Physics one oh one."])
        try Tool.output("sox", [work.path("lecture-spoken.wav"), "-r", "48000", work.path("lecture.wav")])
        let lecture = try Sox.info(work.path("lecture.wav"))
        lectureSeconds = Double(lecture.frames) / lecture.rate
        floatMicrophone = try ALSATestDevices.microphone(playing: work.path("talk.flac"), format: .float32)
        let fan = work.path("fan.wav"), noisy = work.path("noisy.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", fan, "synth", "4", "brownnoise", "vol", "0.05"])
        try Tool.output("sox", ["-D", "-m", fan, "|sox \(spoken) -r 48000 -c 1 -p pad 1.5", noisy, "trim", "0", "4"])
        noisyMicrophone = try ALSATestDevices.microphone(playing: noisy)

        // Files the README names: a web video's sound, a phone's recordings, a download, a talk on a web server.
        try Tool.output("ffmpeg", ["-loglevel", "error", "-i", spoken, "-c:a", "libopus", "-metadata", "title=Talk on the web", work.path("talk.webm")])
        let recordings = home.appendingPathComponent("Phone/Recordings")
        try Tool.output("ffmpeg", ["-loglevel", "error", "-i", spoken, "-c:a", "aac", recordings.appendingPathComponent("Monday.m4a").path])
        try Tool.output("sox", [spoken, recordings.appendingPathComponent("Tuesday.wav").path])
        try Tool.output("sox", [spoken, recordings.appendingPathComponent("2024/May/Wednesday.flac").path])
        try Tool.output("ffmpeg", ["-loglevel", "error", "-i", spoken, "-c:a", "aac", "-metadata", "title=Call", work.path("call.m4a")])
        try Tool.output("ffmpeg", ["-loglevel", "error", "-i", spoken, "-c:a", "aac", home.appendingPathComponent("Downloads/x.m4a").path])
        try Tool.output("opusenc", ["--quiet", spoken, work.path("talk.opus")])
        http = try HTTPServer()
        try http.put(work.file("talk.opus"), as: "talk.opus")
        try Tool.output("ffmpeg", [
            "-loglevel", "error", "-i", spoken, "-c:a", "aac", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
            "-hls_segment_filename", work.path("talk%03d.ts"), work.path("talk.m3u8"),
        ])
        for name in try FileManager.default.contentsOfDirectory(atPath: work.url.path) where name.hasPrefix("talk") && (name.hasSuffix(".ts") || name.hasSuffix(".m3u8")) {
            try http.put(work.file(name), as: name)
        }
        station = try IcecastServer(audio: try IcecastServer.twoTones(in: work), titles: IcecastServer.twoTonesTitles, bytesPerSecond: 32_000)

        // The memos the README takes as there: 3f2a a talk in Opus, 9c1e a tone in WAV, 77b0 a chime in Opus, and a
        // Lesson of noise (so that a range of it played is told from any other).
        ids["3f2a"] = try #require(try cli.json(cli.run("import", work.path("talk.flac"), "--preset", "voice", "--title", "Talk", "--json"))["id"] as? String)
        ids["9c1e"] = try cli.importTone(title: "Tone", seconds: 2)
        ids["77b0"] = try cli.importTone(title: "Chime", seconds: 1, format: "opus")
        try Sox.synth(to: work.path("lesson.wav"), rate: 48000, channels: 2, seconds: 40, "whitenoise whitenoise")
        #expect(try cli.run("import", work.path("lesson.wav"), "--title", "Lesson").status == 0)
        // And a trash that keeps something: an idea deleted before the block.
        _ = try cli.importTone(title: "Old idea")
        #expect(try cli.run("delete", "Old idea").status == 0)
    }

    /// The id the README's `prefix` stands for.
    func id(_ prefix: String) throws -> String { try #require(ids[prefix], "no memo for \(prefix)") }

    /// The environment of a command: the store, the home, the binary on the `PATH`, the sound server and the bus.
    func environment() throws -> [String: String] {
        var environment = cli.environment.merging(try server.environment) { $1 }.merging(bus.environment) { $1 }
        environment["VOICEMEMO_HOME"] = cli.home.path
        environment["XDG_CACHE_HOME"] = cli.cacheHome.path
        environment["HOME"] = home.path
        // The token the README's `--header "Authorization: Bearer $TOKEN"` sends: the local nginx's.
        environment["TOKEN"] = String(http.authorization.dropFirst("Bearer ".count))
        environment["PATH"] = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        return environment
    }

    /// `line` as bash runs it in the working directory, its id prefixes and example.com replaced, `appending` added
    /// (each word quoted) after its first command.
    private func script(_ line: String, appending: [String]) throws -> String {
        var line = line
        for (prefix, id) in ids { line = line.replacingOccurrences(of: " \(prefix)", with: " \(id)") }
        line = line.replacingOccurrences(of: "https://example.com/", with: http.url("").absoluteString)
        line = line.replacingOccurrences(of: "http://radio.example/stream", with: station.url.absoluteString)
        let extra = appending.map { " '" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined()
        if let pipe = line.range(of: " | ") {
            line.insert(contentsOf: extra, at: pipe.lowerBound)
        } else if !line.contains("\n") {
            line += extra
        }
        return "cd '\(work.url.path)' && \(line)"
    }

    /// Runs `line` in bash and waits for it.
    func shell(_ line: String, appending: [String] = []) throws -> ToolResult {
        try Tool.run("bash", ["-c", try script(line, appending: appending)], environment: try environment())
    }

    /// Starts `line` in bash (which `exec`s it, so that a signal reaches it) and returns while it runs.
    func start(_ line: String, appending: [String] = []) throws -> RunningTool {
        let command = try script(line, appending: appending).replacingOccurrences(of: "&& voicememo", with: "&& exec voicememo")
        return try Tool.start("bash", ["-c", command], environment: try environment())
    }

    /// A speaker that writes what it plays (32-bit stereo) into a file of its own.
    func speaker() -> (device: String, file: String) {
        let file = work.path("\(UUID().uuidString.prefix(8)).raw")
        return ("file:'\(file)',raw", file)
    }

    /// The samples a speaker got.
    func played(_ file: String) throws -> [Int32] {
        try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
    }

    /// The seconds from a speaker's first sound to its last.
    func soundingSeconds(_ file: String) throws -> Double {
        let left = try played(file).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let first = try #require(left.firstIndex { $0 != 0 }), last = try #require(left.lastIndex { $0 != 0 })
        return Double(last - first + 1) / 48000
    }

    /// The RMS level in dBFS of `path` from `start` to `end` seconds, as sox measures it.
    func rms(of path: String, from start: Double, to end: Double) throws -> Double {
        let result = try Tool.run("sox", [path, "-n", "trim", "\(start)", "=\(end)", "stats"])
        let line = try #require(result.standardError.split(separator: "\n").first { $0.hasPrefix("RMS lev dB") })
        return try #require(Double(line.split(separator: " ").last ?? ""))
    }

    func lines(_ arguments: String...) throws -> [String] {
        try Tool.run(CLI.binary, arguments, environment: try environment()).standardOutput.split(separator: "\n").map(String.init)
    }

    /// `info MEMO --json`.
    func memo(_ reference: String) throws -> [String: Any] {
        let result = try Tool.run(CLI.binary, ["info", reference, "--json"], environment: try environment())
        guard result.status == 0 else { throw ToolFailure(command: "voicememo info \(reference)", result: result) }
        return try cli.json(result)
    }

    func duration(_ reference: String) throws -> Double { try #require(memo(reference)["duration"] as? Double) }

    /// `list --json`.
    func memos(_ arguments: String...) throws -> [[String: Any]] {
        let result = try Tool.run(CLI.binary, ["list", "--json"] + arguments, environment: try environment())
        return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]] ?? []
    }

    /// The memos that `body` added to the store.
    func newMemos(_ body: () throws -> Void) throws -> [[String: Any]] {
        let before = Set(try memos().compactMap { $0["id"] as? String })
        try body()
        return try memos().filter { !before.contains($0["id"] as? String ?? "") }
    }
}
