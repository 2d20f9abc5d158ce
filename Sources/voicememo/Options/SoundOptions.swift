import ArgumentParser

/// How a memo sounds: volume, balance, speed and loudness. Shared by `play` and `export`.
struct SoundOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Linear volume, 0 to 1.", valueName: "v"))
    var volume: Float = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Balance, -1 (left) to 1 (right).", valueName: "p"))
    var pan: Float = 0

    @Option(help: ArgumentHelp("Speed, 0.25 to 4, pitch kept (with play --pitch varispeed, following the speed).", valueName: "r"))
    var rate: Float = 1

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Bring each memo to this loudness in LUFS (alone: -16), its gain limited so that its true peak stays under -1 dBTP.",
        valueName: "lufs"))
    var normalize: Double?

    /// The speeds `--rate` takes, and the `+`/`-` keys reach: those of `AudioPlayer.rate`.
    static let rates: ClosedRange<Float> = 0.25...4

    func validate() throws {
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be between 0 and 1, not \(volume).") }
        guard (-1...1).contains(pan) else { throw ValidationError("--pan must be between -1 and 1, not \(pan).") }
        guard Self.rates.contains(rate) else { throw ValidationError("--rate must be between 0.25 and 4, not \(rate).") }
        if let normalize, !(-70 < normalize && normalize < 0) {
            throw ValidationError("--normalize takes a loudness in LUFS between -70 and 0, e.g. -16 or -23, not \(normalize).")
        }
    }
}
