/// audiowaveform's binary waveform format (`.dat`), as its `doc/DataFormat.md` describes it and audiowaveform 1.x
/// writes it: little-endian; a header of version (int32: 1 for one channel, 2 for more), flags (uint32, bit 0 set for
/// 8-bit values), sample rate (int32, Hz), samples per pixel (int32), length (uint32, pixels per channel) and, in
/// version 2 only, channels (int32); then per pixel and channel a minimum and a maximum (int8 or int16). 8-bit values
/// are the 16-bit ones divided by 256, rounded toward zero, as audiowaveform writes them.
extension Waveform {
    /// The resolution of a `.dat` file's values.
    public enum Resolution: Int, Sendable, CaseIterable {
        /// int8 values, −128…127: half the size.
        case eight = 8
        /// int16 values, −32768…32767: audiowaveform's default.
        case sixteen = 16
    }

    /// Why bytes are not a waveform: a header field out of range, or a length the data does not match.
    public struct FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, e.g. "version 3 is not 1 or 2".
        public let reason: String

        public var description: String { "not an audiowaveform .dat file: \(reason)" }
    }

    /// The waveform in audiowaveform's `.dat` format: version 1 for one channel, version 2 for more.
    ///
    /// - Parameter bits: The resolution of the values.
    /// - Returns: The file's bytes.
    public func datRepresentation(bits: Resolution = .sixteen) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24 + data.count * bits.rawValue / 8)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(Int32(channelCount == 1 ? 1 : 2))
        append(UInt32(bits == .eight ? 1 : 0))
        append(Int32(clamping: sampleRate))
        append(Int32(clamping: samplesPerPixel))
        append(UInt32(clamping: length))
        if channelCount > 1 { append(Int32(channelCount)) }
        switch bits {
        case .eight: for value in data { append(Int8(value / 256)) }
        case .sixteen: for value in data { append(value) }
        }
        return bytes
    }

    /// Reads a waveform from the bytes of an audiowaveform `.dat` file (version 1 or 2; 8-bit values come back on
    /// the 16-bit scale, times 256).
    ///
    /// - Throws: ``FormatError`` for a header out of range (version, resolution flag, sample rate, samples per pixel
    ///   under 2, channels outside 1…24) or data shorter or longer than the header says.
    public init(datRepresentation bytes: some Collection<UInt8>) throws(FormatError) {
        let bytes = Array(bytes)
        func field(at offset: Int) -> UInt32? {
            guard offset + 4 <= bytes.count else { return nil }
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
        guard let version = field(at: 0), let flags = field(at: 4), let rate = field(at: 8), let zoom = field(at: 12),
              let length = field(at: 16)
        else { throw FormatError(reason: "\(bytes.count) bytes are shorter than its header") }
        guard version == 1 || version == 2 else { throw FormatError(reason: "version \(Int32(bitPattern: version)) is not 1 or 2") }
        guard flags & ~1 == 0 else { throw FormatError(reason: "unknown flags \(flags)") }
        let channels: Int
        if version == 2 {
            guard let count = field(at: 20) else { throw FormatError(reason: "its version 2 header is cut short") }
            guard (1...24).contains(Int32(bitPattern: count)) else {
                throw FormatError(reason: "\(Int32(bitPattern: count)) channels, not 1 to 24")
            }
            channels = Int(count)
        } else {
            channels = 1
        }
        guard (1...Int32.max).contains(Int32(bitPattern: rate)) else { throw FormatError(reason: "sample rate \(Int32(bitPattern: rate))") }
        guard (2...Int32.max).contains(Int32(bitPattern: zoom)) else {
            throw FormatError(reason: "\(Int32(bitPattern: zoom)) samples per pixel, fewer than 2")
        }
        let header = version == 2 ? 24 : 20
        let width = flags & 1 == 1 ? 1 : 2
        let values = Int(length) * channels * 2
        guard bytes.count - header == values * width else {
            throw FormatError(reason: "its header says \(length) pixels, its data holds \((bytes.count - header) / width / channels / 2)")
        }
        let data: [Int16] = (0..<values).map { index in
            let offset = header + index * width
            return width == 1
                ? Int16(Int8(bitPattern: bytes[offset])) * 256
                : Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8)
        }
        self.init(sampleRate: Int(rate), samplesPerPixel: Int(zoom), channelCount: channels, data: data)
    }
}
