/// How samples are laid out in a stream's buffer: the sample types the DSP converts to and from floats.
package enum SampleFormat: Equatable, Sendable {
    /// 32-bit signed little-endian integers: exact for 16- and 24-bit sources.
    case int32
    /// 32-bit IEEE float, little-endian.
    case float32
    /// 24-bit signed little-endian integers in three bytes, as USB microphones give them.
    case int24
    /// 16-bit signed little-endian integers, which every device takes.
    case int16

    /// Bytes one sample takes.
    var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .int24: 3
        case .int32, .float32: 4
        }
    }
}
