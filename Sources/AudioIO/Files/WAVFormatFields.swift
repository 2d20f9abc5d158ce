import SystemPackage

/// The fields of a WAV file's `fmt ` chunk, read straight from its first bytes: only to say what is wrong with a
/// header libsndfile refuses (a rate of 0 Hz, no channels), which its own message ("SF_INFO struct incomplete")
/// does not. Nothing is read through this that libsndfile would read.
struct WAVFormatFields {
    var channels: Int
    var sampleRate: Int
    var bitsPerSample: Int

    /// The fields of the RIFF or RF64 WAVE file on `descriptor`, if its first 4 KiB hold its `fmt ` chunk.
    init?(descriptor: FileDescriptor) {
        var bytes = [UInt8](repeating: 0, count: 4096)
        guard let count = try? bytes.withUnsafeMutableBytes({ try descriptor.read(fromAbsoluteOffset: 0, into: $0) }),
              count >= 12, ["RIFF", "RF64"].contains(String(decoding: bytes[0..<4], as: UTF8.self)),
              String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE"
        else { return nil }
        func number(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        var offset = 12
        while offset + 8 <= count {
            let size = number(offset + 4, 4)
            if String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self) == "fmt " {
                guard size >= 16, offset + 24 <= count else { return nil }
                channels = number(offset + 10, 2)
                sampleRate = number(offset + 12, 4)
                bitsPerSample = number(offset + 22, 2)
                return
            }
            offset += 8 + size + size % 2
        }
        return nil
    }

    /// What is impossible about these fields, in the words of ``AudioFileError/Reason/malformed(_:)``, if anything.
    var impossibility: String? {
        if sampleRate == 0 || !AudioSettings.sampleRates.contains(Double(sampleRate)) {
            return "its header claims a rate of \(sampleRate) Hz"
        }
        if channels == 0 { return "its header claims no channels" }
        if bitsPerSample == 0 { return "its header claims 0-bit samples" }
        return nil
    }
}
