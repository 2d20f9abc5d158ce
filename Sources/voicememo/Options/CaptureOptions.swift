import ArgumentParser

/// Where to capture from and for how long. Shared by `record` and `meter`.
struct CaptureOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The ALSA capture device, e.g. default, pulse or hw:1.", valueName: "pcm"))
    var device = "default"

    @Option(help: ArgumentHelp("Stop after this many seconds (default: at Ctrl-C or SIGTERM).", valueName: "seconds"))
    var duration: Double?

    /// A week: longer is a mistyped number, which on a device faster than real time would fill the disk.
    static let longestDuration = 604_800.0

    func validate() throws {
        if let duration, !(duration > 0 && duration <= Self.longestDuration) {
            throw ValidationError("--duration must be a positive number of seconds up to a week (604800), not \(duration).")
        }
    }
}
