import CALSA
import Glibc

/// A failure reported by alsa-lib: a negative errno value and the function that returned it.
///
/// The corresponding C function for the text is `snd_strerror`.
public struct ALSAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The positive errno value (alsa-lib returns its negation).
    public let code: Int32
    /// The alsa-lib call that failed, e.g. "snd_pcm_open".
    public let function: String

    init(code: Int32, function: String) {
        self.code = abs(code)
        self.function = function
    }

    public var description: String { String(cString: snd_strerror(-code)) }

    /// An underrun (playback) or overrun (capture): `EPIPE`. Recovered on the audio thread.
    var isXrun: Bool { code == EPIPE }
    /// The system suspended the device: `ESTRPIPE`. An interruption.
    var isSuspended: Bool { code == ESTRPIPE }
    /// The device went away (unplugged, module unloaded): `ENODEV`, `EBADFD` or `EIO`.
    var isDeviceGone: Bool { code == ENODEV || code == EBADFD || code == EIO }
    /// Another program holds the device: `EBUSY`.
    var isBusy: Bool { code == EBUSY }
}

/// Turns an alsa-lib return value (negative errno on failure) into a Swift error.
@inline(__always)
func check(_ result: Int32, _ function: String) throws(ALSAError) {
    if result < 0 { throw ALSAError(code: result, function: function) }
}
