import ArgumentParser

/// Where to capture from and for how long. Shared by `record` and `meter`.
struct CaptureOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The ALSA capture device, e.g. default, pulse or hw:1.", valueName: "pcm"))
    var device = "default"

    @Option(
        name: .customLong("duration"), parsing: .unconditional,
        help: ArgumentHelp("Stop after this long: seconds, m:ss or h:mm:ss (default: at Ctrl-C or SIGTERM).", valueName: "time"))
    var givenDuration: TimeArgument?

    /// How long to capture, in seconds; nil until stopped.
    var duration: Double? { givenDuration?.seconds }

    /// A week: longer is a mistyped number, which on a device faster than real time would fill the disk.
    static let longestDuration = 604_800.0

    func validate() throws {
        if let givenDuration, !(givenDuration.seconds > 0 && givenDuration.seconds <= Self.longestDuration) {
            throw ValidationError("--duration must be more than 0 and at most a week (168:00:00), not \(givenDuration).")
        }
    }
}
