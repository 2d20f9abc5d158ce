import ArgumentParser
import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

extension VoiceMemo {
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices",
            abstract: "List capture and playback devices; with --watch, report devices coming and going.",
            discussion: """
                Lists the devices to record from and to play on: ALSA's default, the sound servers \
                (pulse, pipewire, jack) and the sound cards' own PCMs. --all adds every other PCM alsa-lib \
                knows: rate converters, channel mixers, null and the like, which sit between a program and a \
                device. With --watch it then prints one line per event as it happens — a \
                sound card appearing or vanishing in /dev/snd (or $AUDIOIO_SND_DIR), a card's jack \
                (headphones, microphone) plugged or unplugged, a stream's device going away, the process \
                stopped with Ctrl-Z and continued — until Ctrl-C.
                """)

        @Flag(help: "Print JSON: one object for the list, and one object per line for each event.")
        var json = false

        @Flag(help: "Keep running and report each device event as it happens, until Ctrl-C.")
        var watch = false

        @Flag(help: "List every PCM alsa-lib knows, plugins that convert or route included.")
        var all = false

        func run() async throws {
            let session = AudioSession.shared
            let (allInputs, allOutputs) = (session.availableInputs, session.availableOutputs)
            let (inputs, outputs) = all ? (allInputs, allOutputs) : (Self.chosen(allInputs), Self.chosen(allOutputs))
            if json {
                print(try MemoJSON.line(DeviceListJSON(inputs: inputs.map(SessionEventJSON.Port.init),
                                                       outputs: outputs.map(SessionEventJSON.Port.init))))
            } else {
                print("Capture devices:\n" + Self.table(inputs).text)
                print("\nPlayback devices:\n" + Self.table(outputs).text)
                let hidden = Set(allInputs.map(\.name) + allOutputs.map(\.name)).subtracting(inputs.map(\.name) + outputs.map(\.name))
                if !hidden.isEmpty {
                    print("\n\(hidden.count) more (converters and other plugins: \(hidden.sorted().prefix(3).joined(separator: ", "))"
                        + "\(hidden.count > 3 ? ", …" : "")) with --all.")
                }
            }
            guard watch else { return }
            try await Self.watch(session, json: json)
        }

        /// The devices a person picks: ALSA's `default` (listed first, whether or not alsa-lib's hints name it), the
        /// sound servers, and the cards' PCMs but their mixing plumbing (`dmix`, `dsnoop`), which `default` uses.
        static func chosen(_ ports: [PortDescription]) -> [PortDescription] {
            let picked = ports.filter { port in
                let kind = port.name.prefix { $0 != ":" }
                return port.card != nil ? !["dmix", "dsnoop"].contains(kind) : port.type == .soundServer
            }
            guard !picked.contains(where: { $0.name == "default" }) else { return picked }
            return [PortDescription(name: "default", description: "ALSA's default device, what --device defaults to")] + picked
        }

        private static func table(_ ports: [PortDescription]) -> Table {
            var table = Table(columns: [Table.Column(heading: "NAME"), Table.Column(heading: "TYPE"),
                                        Table.Column(heading: "DESCRIPTION", maximumWidth: 60)])
            for port in ports { table.append([port.name, port.type.rawValue, port.description]) }
            return table
        }

        /// Prints the session's events until SIGINT or SIGTERM.
        private static func watch(_ session: AudioSession, json: Bool) async throws {
            session.setCategory(.playAndRecord, options: [.resumeAfterInterruption])
            let (stopped, continuation) = AsyncStream<Void>.makeStream()
            // Printed by an observer: in order, and an interruption's line before Ctrl-Z stops the process.
            let observation = session.addObserver { event in
                let line = json ? (try? MemoJSON.line(SessionEventJSON(event))) ?? "" : "\(Describe.dateTime(Date()))  \(SessionEventText.line(event))"
                print(line)
                CurrentProcess.flushOutput()
            }
            defer { observation.cancel() }
            do {
                try session.setActive(true)
            } catch {
                throw DeviceWatchFailure(error: error)
            }
            let signals = StopSignals { continuation.finish() }
            defer { withExtendedLifetime(signals) {} }
            if !session.isWatchingSoundCards {
                // A container or server that reaches only a sound server: the rest of the events still come.
                let directory = session.soundCardDirectory.terminalSafe
                _ = try? FileDescriptor.standardError.writeAll(
                    "voicememo: no sound cards on this machine ('\(directory)' does not exist): watching without card and jack events\n".utf8)
            }
            if !json { print("\nWatching for device events; Ctrl-C stops.") }
            CurrentProcess.flushOutput()
            for await _ in stopped {}
        }
    }
}

/// What `devices --json` prints first.
private struct DeviceListJSON: Encodable {
    let inputs: [SessionEventJSON.Port]
    let outputs: [SessionEventJSON.Port]
}

/// The card directory cannot be watched, with what to do about it.
private struct DeviceWatchFailure: Error, CustomStringConvertible {
    let error: AudioSessionError

    var description: String {
        "\(error); check its permissions, or set AUDIOIO_SND_DIR to watch another directory"
    }
}
