import FoundationEssentials

/// An `http` or `https` address given where a memo or a file may be: `play` plays it as it downloads, `import` takes
/// it in whole, both through the download cache (`$XDG_CACHE_HOME/voicememo/http`).
enum RemoteAddress {
    /// The address `argument` is, when it is one: `http://` or `https://` (any case) and a host.
    static func url(from argument: String) -> URL? {
        let lowered = argument.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: argument), url.host != nil
        else { return nil }
        return url
    }

    /// `url` as it is shown and printed (`cache`, `play --json`): without a user name and password.
    static func shown(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false), parts.user != nil || parts.password != nil
        else { return url.absoluteString }
        parts.user = nil
        parts.password = nil
        return parts.string ?? url.absoluteString
    }

    /// What messages call the file at `url`: the last part of its path (percent escapes decoded), else its host.
    static func name(of url: URL) -> String {
        let name = url.lastPathComponent
        return name.isEmpty || name == "/" ? url.host ?? url.absoluteString : name
    }
}
