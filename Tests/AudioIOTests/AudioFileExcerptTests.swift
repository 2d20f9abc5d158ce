@testable import AudioIO
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Excerpts cut without encoding again: WAV and CAF samples, Opus and AAC packets as they were, to the sample.
@Suite struct AudioFileExcerptTests {
    /// The packets of the file's one stream.
    static func packets(of path: String) throws -> [OggPacket] {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { try? descriptor.close() }
        let reader = OggPageReader(descriptor: descriptor)
        var stream: OggLogicalStream?
        var packets: [OggPacket] = []
        while case .page(let page) = try reader.next() {
            if stream == nil { stream = try OggLogicalStream(serialNumber: page.serialNumber) }
            try stream?.add(page)
            while let packet = try stream?.nextPacket() { packets.append(packet) }
        }
        return packets
    }

    /// What opusdec decodes `path` to, as 32-bit float samples (no dither), read back left-justified in 32 bits.
    static func opusdec(_ path: String, in scratch: ScratchDirectory) throws -> [Int32] {
        let wav = scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", "--float", path, wav])
        return try Sox.samples(of: wav)
    }

    /// Speech from espeak-ng, `seconds` long or so, at 48 kHz in `channels` channels.
    static func speech(in scratch: ScratchDirectory, channels: Int = 1) throws -> String {
        let spoken = scratch.path("spoken.wav")
        try Tool.output("espeak-ng", ["-w", spoken, "Trimming a memo keeps every packet of its audio as it was. The cut lands on the sample, at the start and at the end, and nothing is encoded twice."])
        let speech = scratch.path("speech.wav")
        // In stereo, the right channel 6 dB down and a little later: two channels that differ.
        try Tool.output("sox", [spoken, "-r", "48000", "-b", "16", speech] + (channels == 2 ? ["remix", "1", "1v0.5", "delay", "0", "0.01"] : []))
        return speech
    }

    /// Cuts at the start (within the pre-skip's reach of the stream's start, and past it, where the decoder must have
    /// settled by the cut: at 71,000 it settles only from some packets), in the middle, at the end, in mono and stereo.
    @Test(arguments: [(0, 48000, 1), (150_000, 333_333, 1), (71_000, nil, 1), (3, 5000, 1), (100_003, 250_000, 2)] as [(Int64, Int64?, Int)])
    func anOpusExcerptDecodesToExactlyTheSamplesBetweenItsCutsWithItsPacketsUnchanged(start: Int64, end: Int64?, channels: Int) throws {
        let scratch = try ScratchDirectory()
        let source = scratch.path("source.opus")
        try Tool.output("opusenc", ["--quiet", "--bitrate", "\(32 * channels)", try Self.speech(in: scratch, channels: channels), source])
        let file = try AudioFile(forReading: URL(fileURLWithPath: source))
        let end = end ?? file.frameCount
        let target = scratch.file("cut.opus")
        let staged = try AudioFileConverter.stageExcerpt(of: URL(fileURLWithPath: source), frames: start..<end, beside: target)
        try staged.place(at: target, replacingExisting: false)

        let original = try Self.opusdec(source, in: scratch)
        let cut = try Self.opusdec(target.path, in: scratch)
        #expect(cut.count == Int(end - start) * channels)
        #expect(cut == Array(original[(Int(start) * channels)..<(Int(end) * channels)]), "opusdec decodes the excerpt to the original's samples")
        #expect(staged.summary.frameCount == end - start)
        let ours = try AudioFile(forReading: target)
        #expect(ours.frameCount == end - start)

        let kept = try Self.packets(of: target.path).dropFirst(2).map(\.data)
        let all = try Self.packets(of: source).dropFirst(2).map(\.data)
        let first = try #require(all.firstIndex(of: kept[0]))
        #expect(Array(all[first..<(first + kept.count)]) == kept, "every audio packet kept byte for byte")
        let info = try Tool.run("opusinfo", [target.path])
        #expect(info.status == 0 && !(info.standardOutput + info.standardError).localizedCaseInsensitiveContains("warning"), "\(info.standardOutput)\(info.standardError)")
    }

    /// Cuts of an M4A ffmpeg made (AAC-LC, and Main with its prediction, which reaches further back), at the start
    /// (within the encoder's priming), in the middle, to the end, in mono and stereo. Made without noise substitution
    /// (PNS), whose noise a decoder draws anew wherever it starts (TrimTests measures a cut with it).
    @Test(arguments: [(60_000, 168_000, 1, "aac_low"), (3, 5000, 1, "aac_low"), (71_000, nil, 1, "aac_low"),
                      (100_003, 250_000, 2, "aac_low"), (150_000, 333_333, 1, "aac_main")] as [(Int64, Int64?, Int, String)])
    func anM4AExcerptDecodesToExactlyTheSamplesBetweenItsCutsWithItsAACPacketsUnchanged(
        start: Int64, end: Int64?, channels: Int, profile: String
    ) throws {
        let scratch = try ScratchDirectory()
        let source = scratch.path("source.m4a")
        try Tool.output("ffmpeg", ["-v", "error", "-i", try Self.speech(in: scratch, channels: channels), "-c:a", "aac", "-profile:a", profile,
                                   "-aac_pns", "0"] + (profile == "aac_main" ? ["-aac_pred", "1"] : []) + [source])
        let file = try AudioFile(forReading: URL(fileURLWithPath: source))
        let end = end ?? file.frameCount
        let target = scratch.file("cut.m4a")
        let staged = try AudioFileConverter.stageExcerpt(of: URL(fileURLWithPath: source), frames: start..<end, beside: target)
        try staged.place(at: target, replacingExisting: false)
        let length = Int(end - start) * channels

        // Its edit list states the cut's length: to ffprobe, and to our reader, which decodes exactly the original's samples.
        #expect(try FFprobe.codec(of: target.path).frames == Int(end - start))
        #expect(staged.summary.frameCount == end - start)
        let ours = try AudioFile(forReading: target)
        #expect(ours.frameCount == end - start)
        let original = try file.read(frameCount: Int(file.frameCount))
        #expect(try ours.read(frameCount: Int(end - start)) == Array(original[(Int(start) * channels)..<(Int(end) * channels)]))
        // And seeks in it by its packets' timestamps, as in any M4A: a jump back from the end to its middle.
        let middle = Int(end - start) / 2
        try ours.seek(toFrame: Int64(middle))
        #expect(try ours.read(frameCount: 1000) == Array(original[((Int(start) + middle) * channels)..<((Int(start) + middle + 1000) * channels)]))
        // ffmpeg skips what the edit list skips at the start; FFmpeg 5.1 decodes the last packet whole, past the end
        // the edit list gives, as it does any M4A's padding.
        let decoded = try FFmpeg.samples(of: target.path, in: scratch)
        let whole = try FFmpeg.samples(of: source, in: scratch)
        #expect(decoded.count >= length && decoded.count < length + 1024 * channels, "\(decoded.count)")
        #expect(Array(decoded.prefix(length)) == Array(whole[(Int(start) * channels)..<(Int(end) * channels)]), "ffmpeg decodes the original's samples")

        // Packet i of the source (1024 frames) holds frames from (i − 1)·1024, after the encoder's priming: the cut keeps
        // those from the one before the start's (Main: from a second before the start), to the end's, byte for byte.
        let all = try FFprobe.packetHashes(of: source)
        let kept = try FFprobe.packetHashes(of: target.path)
        let settle: Int64 = profile == "aac_low" ? 1024 : 48000
        let first = start < settle ? 0 : Int((start - settle) / 1024) + 1
        let last = Int((end - 1) / 1024) + 1
        #expect(kept == Array(all[first...last]), "\(kept.count) packets of \(all.count)")
    }

    @Test(arguments: [("wav", 16, 44100), ("caf", 24, 48000), ("wav", 32, 16000)] as [(String, Int, Int)])
    func aPCMExcerptHoldsExactlyTheSamplesBetweenItsCutsInItsOwnFormat(format: String, bits: Int, rate: Int) throws {
        let scratch = try ScratchDirectory()
        let source = scratch.path("source.\(format)")
        try Tool.output("sox", ["-D", "-n", "-r", "\(rate)", "-c", "2", "-b", "\(bits)"] + (bits == 32 ? ["-e", "floating-point"] : [])
            + [source, "synth", "3", "pinknoise", "sine", "300-3000", "vol", "0.5"])
        let target = scratch.file("cut.\(format)")
        let staged = try AudioFileConverter.stageExcerpt(of: URL(fileURLWithPath: source), frames: 1000..<40_000, beside: target)
        try staged.place(at: target, replacingExisting: false)
        let all = try Sox.samples(of: source)
        #expect(try Sox.samples(of: target.path) == Array(all[2000..<80_000]), "every sample of both channels, exactly")
        let (original, cut) = (try Sox.info(source), try Sox.info(target.path))
        #expect(cut.frames == 39_000 && cut.rate == original.rate && cut.bits == original.bits && cut.channels == 2)
        #expect(staged.summary.loudness == (try AudioFile(forReading: target).measureLoudness()))
    }
}
