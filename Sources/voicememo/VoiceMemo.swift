import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge
import SystemPackage

@main
struct VoiceMemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicememo",
        abstract: "Record, keep and play voice memos from the terminal.",
        discussion: """
            Memos live in $VOICEMEMO_HOME, else $XDG_DATA_HOME/voicememo, else ~/.local/share/voicememo. \
            A memo is named by its id, a unique prefix of it (4 characters or more), or its exact title. \
            For shell completion of commands and memo ids, load the output of \
            'voicememo --generate-completion-script bash' (or zsh, fish).
            """,
        subcommands: [
            Record.self, List.self, Play.self, Info.self, Rename.self, Delete.self, Import.self, Export.self,
            Trim.self, Restore.self, Undo.self, Trash.self, Enhance.self, WaveformCommand.self, Meter.self, Devices.self,
            Presets.self, Cache.self, Sync.self,
        ])

    // A flag of its own rather than the configuration's `version`, which every run would build: asking each library its
    // version loads FFmpeg and libcurl, which the other commands load only when a file or an address needs them.
    @Flag(help: "Show the version and the libraries it runs on.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print("voicememo \(audioIOVersion) (\(LinkedLibraries.versions.joined(separator: ", ")))")
    }

    /// Runs the command line with the exit codes of the CLI contract: 0 success, 1 runtime failure
    /// (device, file, store) with one line on stderr, 2 usage error.
    static func main() async {
        // A reader that goes away (`voicememo record | head -c 1`) ends the output, never the command: a write to
        // the closed pipe fails with EPIPE instead of killing the process, and a recording goes on to its end.
        Signal.brokenPipe.ignore()
        do {
            var command = try parseAsRoot(NormalizeOption.expanding(Array(CommandLine.arguments.dropFirst())))
            PresetsInStore.moveOut(of: MemoStore.defaultDirectory())
            // These stop gracefully on Ctrl-C and keep what they recorded; the others end at once, leaving nothing
            // half-written.
            let stopsGracefully = command is Record || command is Play || command is Meter || command is Devices
            let interrupted = stopsGracefully ? nil : InterruptedWrites.watch()
            defer { interrupted?.cancel() }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            CurrentProcess.exit(report(error))
        }
    }

    /// Prints `error` the way the contract says and returns the exit status.
    private static func report(_ error: any Error) -> Int32 {
        let code = exitCode(for: error)
        if code.isSuccess {
            print(fullMessage(for: error))
            return 0
        }
        if code == .validationFailure {
            _ = try? FileDescriptor.standardError.writeAll((fullMessage(for: error) + "\n").utf8)
            return 2
        }
        if error is ExitCode { return code.rawValue }
        _ = try? FileDescriptor.standardError.writeAll("voicememo: \(String(describing: error).terminalSafe)\n".utf8)
        return isUsageError(error) ? 2 : 1
    }

    /// Settings and preset names come from the command line: when they are wrong, the usage is.
    private static func isUsageError(_ error: any Error) -> Bool {
        switch error {
        case is AudioSettingsError: true
        case AudioPresetError.notFound: true
        case MemoStoreError.unknownExportFormat: true
        case is StandardOutputNeedsFormat: true
        default: false
        }
    }
}
