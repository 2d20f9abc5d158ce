import Foundation
import TestSupport
import Testing

/// Wrong input gets one line on stderr saying what failed and what to do, the contract's exit code, and
/// leaves the store as it was.
@Suite struct ErrorTests {
    enum BadInput: String, CaseIterable, Sendable {
        case missing, empty, randomBytes, headerOnly, truncatedHeader, directory, fifo, absurdChannels
    }

    private func make(_ input: BadInput, in cli: CLI) throws -> String {
        let path = cli.scratch.path("bad-\(input.rawValue).wav")
        switch input {
        case .missing: break
        case .empty: try Data().write(to: URL(fileURLWithPath: path))
        case .randomBytes: try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }).write(to: URL(fileURLWithPath: path))
        case .headerOnly: try wavHeader(channels: 1, dataBytes: 0).write(to: URL(fileURLWithPath: path))
        case .truncatedHeader: try Data(wavHeader(channels: 1, dataBytes: 100).prefix(22)).write(to: URL(fileURLWithPath: path))
        case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .fifo: try Tool.output("mkfifo", [path])
        case .absurdChannels: try (wavHeader(channels: 4000, dataBytes: 8000) + Data(count: 8000)).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    @Test(arguments: BadInput.allCases)
    func aBadFileFailsInOneLineAndChangesNothing(input: BadInput) throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("good.wav"), rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        #expect(try cli.run("import", cli.scratch.path("good.wav")).status == 0)
        let before = cli.index
        let result = try cli.run("import", make(input, in: cli))
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: "), "\(result.standardError)")
        #expect(result.standardError.contains("bad-\(input.rawValue).wav"))
        #expect(cli.index == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }

    @Test func anUnreadableFileSaysPermissionDenied() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("secret.wav"), rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: cli.scratch.path("secret.wav"))
        // root reads anything, so check as an ordinary user, as most people run it.
        let user: String? = getuid() == 0 ? "nobody" : nil
        if user != nil {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli.scratch.url.path)
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        }
        let result = try cli.run("import", cli.scratch.path("secret.wav"), as: user)
        #expect(result.status == 1)
        #expect(result.standardError.contains("permission denied"), "\(result.standardError)")
    }

    @Test(arguments: [
        (["import"], "Missing expected argument"),
        (["import", "x.wav", "--bit-depth", "20"], "--bit-depth must be 16, 24 or 32"),
        (["import", "x.wav", "--preset", "voice", "--format", "wav"], "either --preset or --format"),
        (["import", "x.wav", "--format", "mp3"], "mp3"),
        (["export", "abcd"], "Missing expected argument"),
        (["info"], "Missing expected argument"),
        (["rename", "abcd"], "Missing expected argument"),
        (["delete"], "Missing expected argument"),
        (["list", "--sort", "size"], "'size'"),
        (["list", "extra"], "Unexpected argument"),
        (["frobnicate"], "Unexpected argument"),
    ])
    func aUsageErrorExitsWithTwo(arguments: [String], message: String) throws {
        let cli = try CLI()
        let result = try Tool.run(CLI.binary, arguments, environment: ["VOICEMEMO_HOME": cli.home.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test(arguments: [
        (["--preset", "vocie"], "no preset named 'vocie'; available:"),
        (["--format", "opus", "--sample-rate", "44100"], "Opus takes 8000, 12000, 16000, 24000 or 48000 Hz"),
        (["--format", "opus", "--channels", "9"], "opus takes 1 to 8 channels"),
        (["--format", "wav", "--bitrate", "64000"], "no bit rate"),
    ])
    func wrongSettingsAreAUsageErrorInOneLine(arguments: [String], message: String) throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("a.wav"), rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        let result = try Tool.run(CLI.binary, ["import", cli.scratch.path("a.wav")] + arguments, environment: ["VOICEMEMO_HOME": cli.home.path])
        #expect(result.status == 2)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func anUnknownMemoSaysHowToFindOne() throws {
        let result = try CLI().run("export", "nothing-like-this", "/tmp/x.wav")
        #expect(result.status == 1)
        #expect(result.standardError == "voicememo: no memo matches 'nothing-like-this'; run 'voicememo list' to see ids and titles\n")
    }

    @Test(arguments: ["list", "list --json"])
    func aListThatCannotBeWrittenSaysSoAndFails(command: String) throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Kept")
        var environment = cli.environment
        environment["VOICEMEMO"] = CLI.binary
        let result = try Tool.run("bash", ["-c", "exec \"$VOICEMEMO\" \(command) > /dev/full"], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError == "voicememo: cannot write the list to standard output: No space left on device\n")
    }

    @Test func anExportNeverReplacesADeviceOrAFIFO() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Tone")
        let fifo = cli.scratch.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for (destination, kind) in [("/dev/null", "a character device"), (fifo, "a FIFO (named pipe)")] {
            let result = try cli.run("export", id, destination, "--format", "wav")
            #expect(result.status == 1)
            #expect(result.standardError == "voicememo: cannot write '\(destination)': it is \(kind); give the path of a file to create or replace\n")
            var status = stat()
            #expect(lstat(destination, &status) == 0)
            #expect(status.st_mode & S_IFMT == (destination == fifo ? S_IFIFO : S_IFCHR), "\(destination) was replaced")
        }
    }

    @Test func aPathWithANewlineIsStillOneLineOfError() throws {
        let result = try CLI().run("import", "first line\nsecond line.wav")
        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardError.contains(#"first line\nsecond line.wav': no such file"#), "\(result.standardError)")
    }

    @Test(arguments: ["-1", "0", "1e300", "604801", "168:00:01", "-0:30"])
    func aDurationThatIsNoLengthOrAbsurdlyLongIsAUsageError(duration: String) throws {
        let result = try CLI().run("record", "--device", "null", "--duration", duration)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("Error: --duration must be more than 0 and at most a week (168:00:00), not \(duration).\n"),
                "\(result.standardError)")
    }

    @Test(arguments: ["1e309", "inf", "nan", "1:75", "soon", "1:00:00:00"])
    func aDurationThatIsNoTimeIsAUsageErrorThatSaysHowToWriteOne(duration: String) throws {
        let result = try CLI().run("record", "--device", "null", "--duration", duration)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("The value '\(duration)' is invalid for '--duration <time>'"), "\(result.standardError)")
        #expect(result.standardError.contains("seconds, m:ss or h:mm:ss"))
    }

    /// A time written with a minus sign is read as a time (not as a missing value, as an option would be), and
    /// refused in words, by every command that takes one.
    @Test(arguments: [["trim", "x", "--start", "-1"], ["trim", "x", "--end", "-0:02"], ["play", "x", "--start", "-1"]])
    func aNegativeTimeIsRefusedAsBeforeTheStart(arguments: [String]) throws {
        let result = try CLI().run(arguments, with: [:])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix(
            "Error: \(arguments[2]) \(arguments[3]) is before the memo's start: a time counts from it, in seconds, m:ss or h:mm:ss.\n"),
            "\(result.standardError)")
    }

    private func wavHeader(channels: UInt16, dataBytes: UInt32) -> Data {
        var data = Data("RIFF".utf8)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(UInt32(36) &+ dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16)); append(UInt16(1)); append(channels); append(UInt32(48000))
        append(UInt32(48000) &* UInt32(channels) &* 2); append(channels &* 2); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(dataBytes)
        return data
    }
}

/// An index that cannot be read for its permissions is an error that says so: nothing is rebuilt, moved or lost.
@Suite struct UnreadableIndexTests {
    @Test func anIndexTheUserMayNotReadIsAnErrorAndNothingChanges() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Recorded", format: "opus")
        #expect(try cli.run("rename", id, "Renamed").status == 0)
        // Another user's store, and that user's state of it (their index), with the same XDG_STATE_HOME.
        try Tool.output("chown", ["-R", "nobody", cli.home.path, cli.stateHome.path])
        let index = cli.storeState.appendingPathComponent("memos.json").path
        let cache = cli.storeState.appendingPathComponent(".memos.cache").path
        try FileManager.default.removeItem(atPath: cache)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: index)
        let before = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).sorted()
        for arguments in [["list"], ["info", id], ["rename", id, "Again"]] {
            let result = try Tool.run(
                "runuser", ["-u", "nobody", "--", "env", "VOICEMEMO_HOME=\(cli.home.path)", "XDG_STATE_HOME=\(cli.stateHome.path)", CLI.binary] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError == "voicememo: cannot read the memo index '\(index)': Permission denied; check its permissions (nothing was changed)\n")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.home.path).sorted() == before)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: index)
        #expect(try cli.run("list").standardOutput.contains("Renamed"))
    }
}
