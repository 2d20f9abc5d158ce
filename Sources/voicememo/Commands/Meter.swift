import ArgumentParser
import AudioIO
import FoundationEssentials
import Synchronization

extension VoiceMemo {
    struct Meter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "meter",
            abstract: "Show the input level of a device, without recording.",
            discussion: """
                On a terminal, a bar per channel with its peak and average level in dBFS and a peak-hold \
                mark, redrawn about 20 times a second; otherwise a plain line (or, with --json, a JSON \
                object) every tenth of a second with the levels since the previous one. Readings begin with \
                the device's first input (a sound server may take a moment to send it) and their times are \
                seconds of input. Runs until q or Enter (on a terminal), Ctrl-C, SIGTERM or SIGHUP, or for --duration \
                seconds of input.
                """)

        @OptionGroup
        var capture: CaptureOptions

        @Flag(help: "Print one JSON object per line: time, peakDBFS, averageDBFS.")
        var json = false

        /// Seconds between two readings off the terminal.
        static let plainInterval = 0.1

        func run() async throws {
            let meter = AudioInputMeter(device: capture.device)
            do {
                try meter.start()
            } catch {
                throw DeviceFailure(error: error)
            }
            // A stop signal, a device failure or the duration's end: what this task waits for while the readings are
            // shown on a thread of their own.
            let ends = AsyncStream<Void>.makeStream()
            let stop = StopSignals { ends.continuation.yield() }
            // The session tells the display of Ctrl-Z and fg; a meter has no recorder to activate it.
            try? AudioSession.shared.setActive(true)
            let live = LiveMeter(hidden: false, json: json, plainInterval: Self.plainInterval)
            defer { live.finish() }
            // Keys come from the live display's terminal or, when nothing is drawn there (--json, output to a pipe),
            // from standard input alone when it is a terminal: q or Enter stops, as it stops record and play.
            let keyboard = live.display ?? TerminalDisplay(drawing: false)
            defer { keyboard?.finish() }
            let keys = keyboard?.takesKeys == true ? Task {
                for await key in Key.typed() where key == .quit || key == .enter {
                    ends.continuation.yield()
                }
            } : nil
            defer { keys?.cancel() }
            let failure = Mutex<(any Error)?>(nil)
            // Seconds of input measured at the last reading. A reading with no new input would show as silence
            // what did not come yet: a sound server may take a second to deliver a new stream's first frames, and
            // a busy machine may hold a period back. Times and --duration count input, as record's do.
            let measured = Mutex(0.0)
            let ticker = live.start { [device = capture.device, duration = capture.duration] live in
                guard failure.withLock({ $0 == nil }) else { return }
                if let error = meter.failure {
                    failure.withLock { $0 = DeviceFailure(error: error) }
                    ends.continuation.yield()
                    return
                }
                let time = meter.currentTime
                guard measured.withLock({ measured in
                    defer { measured = max(measured, time) }
                    return time > measured
                }) else { return }
                meter.updateMeters()
                let channels = 0..<meter.channelCount
                let levels = AudioLevels(
                    peak: channels.map { Double(meter.peakPower(forChannel: $0)) },
                    average: channels.map { Double(meter.averagePower(forChannel: $0)) })
                do {
                    try live.show(
                        levels, elapsed: time, bytes: nil,
                        status: MeterLine.status("METER  ", title: device.terminalSafe, elapsed: time, bytes: nil))
                } catch {
                    failure.withLock { $0 = error }
                }
                if let duration, time >= duration { ends.continuation.yield() }
            }
            for await _ in ends.stream { break }
            ticker.stop()
            withExtendedLifetime(stop) {}
            if let error = failure.withLock({ $0 }) {
                meter.stop()
                throw error
            }
            meter.stop()
        }
    }
}
