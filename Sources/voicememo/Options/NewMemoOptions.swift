import ArgumentParser

/// What a new memo is called, how it is encoded and how it is tagged: the options `record` and `import` share. `Title`
/// says what `--title` defaults to in each.
struct NewMemoOptions<Title: TitleDefault>: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The memo's title\(Title.help); one that starts with '-' too, as --title=-x.", valueName: "title"))
    var title: String?

    @OptionGroup(title: "Encoding")
    var encoding: EncodingOptions

    @OptionGroup(title: "Tags")
    var tags: TagOptions
}

/// What a command's `--title` defaults to, as its help says it.
protocol TitleDefault {
    /// The words after “The memo's title” in the help, e.g. ` (default: the file's name)`.
    static var help: String { get }
}
