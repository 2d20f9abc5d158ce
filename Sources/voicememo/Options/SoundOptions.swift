import ArgumentParser

/// How a memo sounds: volume, balance and speed. Shared by `play` and `export`.
struct SoundOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Linear volume, 0 to 1.", valueName: "v"))
    var volume: Float = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Balance, -1 (left) to 1 (right).", valueName: "p"))
    var pan: Float = 0

    @Option(help: ArgumentHelp("Speed, 0.5 to 2, pitch kept.", valueName: "r"))
    var rate: Float = 1

    /// Whether the memo sounds as it was recorded.
    var isUnchanged: Bool { volume == 1 && pan == 0 && rate == 1 }

    func validate() throws {
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be between 0 and 1, not \(volume).") }
        guard (-1...1).contains(pan) else { throw ValidationError("--pan must be between -1 and 1, not \(pan).") }
        guard (0.5...2).contains(rate) else { throw ValidationError("--rate must be between 0.5 and 2, not \(rate).") }
    }
}
