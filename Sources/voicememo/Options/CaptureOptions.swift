import ArgumentParser

/// Where to capture from and for how long. Shared by `record` and `meter`.
struct CaptureOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The ALSA capture device, e.g. default, pulse or hw:1.", valueName: "pcm"))
    var device = "default"

    @Option(help: ArgumentHelp("Stop after this many seconds (default: at Ctrl-C or SIGTERM).", valueName: "seconds"))
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds, not \(duration).")
        }
    }
}
