import CALSA

/// Facts about the alsa-lib this process runs on.
enum ALSALibrary {
    /// e.g. "alsa-lib 1.2.8". The corresponding C function is `snd_asoundlib_version`.
    static var version: String { "alsa-lib " + String(cString: snd_asoundlib_version()) }
}
