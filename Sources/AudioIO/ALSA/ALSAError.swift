import CALSA
import Glibc

extension DeviceError {
    /// The error for an alsa-lib return code (a negative errno value), named for what happened to the device; the
    /// text of one with no name of its own is alsa-lib's (`snd_strerror`).
    init(alsaCode code: Int32) {
        switch -code {
        case EPIPE: self = .xrun
        case ESTRPIPE: self = .suspended
        case ENODEV, EBADFD, EIO: self = .disconnected
        case EBUSY: self = .busy
        case ENOENT: self = .notFound
        case EACCES, EPERM: self = .permissionDenied
        case EINVAL: self = .unsupportedConfiguration
        default: self = .failed(String(cString: snd_strerror(code)))
        }
    }
}

/// Turns an alsa-lib return value (negative errno on failure) into a ``DeviceError``: the one check every
/// alsa-lib call of `ALSA/` goes through.
@inline(__always)
func checkALSA(_ result: Int32) throws(DeviceError) {
    if result < 0 { throw DeviceError(alsaCode: result) }
}
