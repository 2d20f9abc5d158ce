import ArgumentParser
import AudioIO
import FoundationEssentials

extension VoiceMemo {
    struct Meter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the input level of a device, without recording.",
            discussion: """
                On a terminal, a bar per channel with its peak and average level in dBFS and a peak-hold \
                mark, redrawn about 20 times a second; otherwise a plain line (or, with --json, a JSON \
                object) every tenth of a second with the levels since the previous one. Readings begin with \
                the device's first input (a sound server may take a moment to send it) and their times are \
                seconds of input. Runs until Ctrl-C, SIGTERM or SIGHUP, or for --duration seconds of input.
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
            let stop = StopSignals()
            // The session tells the display of Ctrl-Z and fg; a meter has no recorder to activate it.
            try? AudioSession.shared.setActive(true)
            let live = LiveMeter(hidden: false, json: json, plainInterval: Self.plainInterval)
            defer { live.finish() }
            // Seconds of input measured at the last reading. A reading with no new input would show as silence
            // what did not come yet: a sound server may take a second to deliver a new stream's first frames, and
            // a busy machine may hold a period back. Times and --duration count input, as record's do.
            var measured = 0.0
            while stop.received == nil {
                guard try await live.nextTick() else { continue }
                if let failure = meter.failure { throw DeviceFailure(error: failure) }
                let time = meter.currentTime
                guard time > measured else { continue }
                measured = time
                meter.updateMeters()
                let channels = 0..<meter.channelCount
                let levels = AudioLevels(
                    peak: channels.map { Double(meter.peakPower(forChannel: $0)) },
                    average: channels.map { Double(meter.averagePower(forChannel: $0)) })
                try live.show(
                    levels, elapsed: time, bytes: nil,
                    status: MeterLine.status("METER  ", title: capture.device.terminalSafe, elapsed: time, bytes: nil))
                if let duration = capture.duration, time >= duration { break }
            }
            meter.stop()
        }
    }
}
