import CALSA

/// Facts about the alsa-lib this process runs on, and its process-wide settings.
enum ALSALibrary {
    /// e.g. "alsa-lib 1.2.8". The corresponding C function is `snd_asoundlib_version`.
    static var version: String { "alsa-lib " + String(cString: snd_asoundlib_version()) }

    /// Stops alsa-lib printing its own messages on stderr; failures reach callers as ``DeviceError``s.
    ///
    /// The corresponding C function is `snd_lib_error_set_handler`.
    static func silenceErrorMessages() {
        calsa_silence_errors()
    }
}
