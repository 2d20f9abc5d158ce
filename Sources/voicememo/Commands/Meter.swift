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
                object) every tenth of a second with the levels since the previous one. Runs until Ctrl-C, \
                SIGTERM or SIGHUP, or --duration.
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
            let started = ContinuousClock.now
            while stop.received == nil {
                guard try await live.nextTick() else { continue }
                let elapsed = (ContinuousClock.now - started) / .seconds(1)
                meter.updateMeters()
                if let failure = meter.failure { throw DeviceFailure(error: failure) }
                let channels = 0..<meter.channelCount
                let levels = AudioLevels(
                    peak: channels.map { Double(meter.peakPower(forChannel: $0)) },
                    average: channels.map { Double(meter.averagePower(forChannel: $0)) })
                try live.show(
                    levels, elapsed: elapsed, bytes: nil,
                    status: MeterLine.status("METER  ", title: capture.device.terminalSafe, elapsed: elapsed, bytes: nil))
                if let duration = capture.duration, elapsed >= duration { break }
            }
            meter.stop()
        }
    }
}
