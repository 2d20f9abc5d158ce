import ArgumentParser

/// The tags a memo carries besides its title and date, as `record` and `import` take them; they go into the audio
/// file's own tags too (artist, album, comment).
struct TagOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Who is heard, or who made it (the file's artist tag).", valueName: "name"))
    var artist: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "What it belongs to: a series, a course, a project (the file's album tag).", valueName: "name"))
    var album: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("A note kept with it (the file's comment tag).", valueName: "text"))
    var comment: String?
}
