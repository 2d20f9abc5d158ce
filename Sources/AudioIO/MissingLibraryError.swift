/// A library that AudioIO loads the first time something needs it, rather than when the process starts, could not be
/// loaded: FFmpeg, which writes M4A, or libcurl, which downloads addresses. Only what needs it fails; the rest works
/// without it.
///
/// Its `description` is one sentence: what needs which library, why it could not be loaded, what works without it
/// and which Debian packages to install.
public struct MissingLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What needs the library, e.g. "M4A".
    public let feature: String
    /// The library, e.g. "FFmpeg".
    public let library: String
    /// The dynamic loader's sentence for why it could not be loaded.
    public let reason: String
    /// What works without it, e.g. "the other formats work without it".
    public let unaffected: String
    /// The Debian packages that bring it, e.g. `["libavformat59", "libavcodec59"]`.
    public let packages: [String]

    package init(feature: String, library: String, reason: String, unaffected: String, packages: [String]) {
        self.feature = feature
        self.library = library
        self.reason = reason
        self.unaffected = unaffected
        self.packages = packages
    }

    public var description: String {
        "\(feature) needs \(library), which could not be loaded (\(reason)); \(unaffected); "
            + "install it with: apt install \(packages.joined(separator: " "))"
    }
}
