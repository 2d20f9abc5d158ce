import COpus

/// Facts about the libopus that libsndfile encodes and decodes Opus with.
enum OpusLibrary {
    /// e.g. "libopus 1.3.1". The corresponding C function is `opus_get_version_string`.
    static var version: String { String(cString: opus_get_version_string()) }
}
