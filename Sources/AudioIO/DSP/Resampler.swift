import CSoxr

/// A failure reported by libsoxr; the corresponding C type is `soxr_error_t`.
struct ResamplerError: Error, CustomStringConvertible {
    let description: String
}

/// Turns `soxr_error_t` (NULL on success, else a static message) into a Swift error.
private func check(_ error: soxr_error_t?) throws(ResamplerError) {
    if let error { throw ResamplerError(description: String(cString: error)) }
}

/// Streaming sample-rate conversion of interleaved 32-bit float frames, by libsoxr at its high quality
/// (`SOXR_HQ`, 20-bit precision, the quality of `sox rate -h`).
///
/// **Not thread-safe**: one thread feeds it.
final class Resampler {
    private let handle: soxr_t
    private let channelCount: Int
    /// Output frames per input frame.
    let ratio: Double

    /// The corresponding C function is `soxr_create`.
    init(inputRate: Double, outputRate: Double, channelCount: Int) throws(ResamplerError) {
        var error: soxr_error_t? = nil
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        let handle = soxr_create(inputRate, outputRate, UInt32(channelCount), &error, nil, &quality, nil)
        try check(error)
        guard let handle else { throw ResamplerError(description: "soxr_create returned nothing") }
        self.handle = handle
        self.channelCount = channelCount
        self.ratio = outputRate / inputRate
    }

    /// A variable-rate resampler (libsoxr's `SOXR_VR`) whose input-to-output ratio, set by ``setRatio(_:slewFrames:)``,
    /// may be anything up to `maximumRatio`; it starts at 1.
    ///
    /// The corresponding C functions are `soxr_create` with `SOXR_VR`, and `soxr_set_io_ratio`.
    init(variableRatioUpTo maximumRatio: Double, channelCount: Int) throws(ResamplerError) {
        var error: soxr_error_t? = nil
        var quality = soxr_quality_spec(UInt(SOXR_HQ), UInt(SOXR_VR))
        // A variable-rate resampler is made with the largest ratio it will be asked for as its rates.
        let handle = soxr_create(maximumRatio, 1, UInt32(channelCount), &error, nil, &quality, nil)
        try check(error)
        guard let handle else { throw ResamplerError(description: "soxr_create returned nothing") }
        self.handle = handle
        self.channelCount = channelCount
        self.ratio = 1
        try check(soxr_set_io_ratio(handle, 1, 0))
    }

    deinit { soxr_delete(handle) }

    /// Makes a variable-rate resampler take `ratio` input frames per output frame, moving there smoothly over the next
    /// `slewFrames` output frames (0: at once). The corresponding C function is `soxr_set_io_ratio`.
    func setRatio(_ ratio: Double, slewFrames: Int) throws(ResamplerError) {
        try check(soxr_set_io_ratio(handle, ratio, slewFrames))
    }

    /// Converts as much of `input` as fits into `output`; returns the frames consumed and produced.
    ///
    /// The corresponding C function is `soxr_process`.
    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>)
        throws(ResamplerError) -> (consumed: Int, produced: Int)
    {
        var consumed = 0
        var produced = 0
        try check(soxr_process(
            handle, input.baseAddress, input.count / channelCount, &consumed,
            output.baseAddress, output.count / channelCount, &produced))
        return (consumed, produced)
    }

    /// After the last input: writes the frames still held back into `output`; returns how many (0 when drained).
    ///
    /// The corresponding C function is `soxr_process` with no input.
    func flush(into output: UnsafeMutableBufferPointer<Float>) throws(ResamplerError) -> Int {
        var produced = 0
        try check(soxr_process(handle, nil, 0, nil, output.baseAddress, output.count / channelCount, &produced))
        return produced
    }

    /// Forgets the signal so far: what is processed next is a new one, preceded by silence.
    ///
    /// The corresponding C function is `soxr_clear`.
    func clear() throws(ResamplerError) {
        try check(soxr_clear(handle))
    }

    /// Converts all of `input`, handing each block it yields (held in `output`) to `body`.
    func processAll(
        _ input: UnsafeBufferPointer<Float>, through output: UnsafeMutableBufferPointer<Float>,
        _ body: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        var offset = 0
        while offset < input.count {
            let (consumed, produced) = try process(UnsafeBufferPointer(rebasing: input[offset...]), into: output)
            guard consumed > 0 || produced > 0 else { throw ResamplerError(description: "libsoxr made no progress") }
            try body(UnsafeBufferPointer(rebasing: output[..<(produced * channelCount)]))
            offset += consumed * channelCount
        }
    }

    /// After the last input: hands every block still held back (held in `output`) to `body`.
    func flushAll(through output: UnsafeMutableBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        while case let produced = try flush(into: output), produced > 0 {
            try body(UnsafeBufferPointer(rebasing: output[..<(produced * channelCount)]))
        }
    }

    /// The library's version string, e.g. "libsoxr-0.1.3".
    ///
    /// The corresponding C function is `soxr_version`.
    static var version: String { String(cString: soxr_version()) }
}
