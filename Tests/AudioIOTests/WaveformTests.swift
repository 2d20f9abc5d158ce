import AudioIO
import Foundation
import TestSupport
import Testing

/// Waveforms: measured on the way through a conversion or a recording, as audiowaveform measures them, and written in
/// its `.dat` format as its documentation (doc/DataFormat.md) lays the bytes out.
@Suite(.timeLimit(.minutes(1))) struct WaveformTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// audiowaveform's numbers for a 16-bit file, from sox's samples: per channel and every `zoom` frames (the last
    /// stretch what is left), the lowest and highest sample, interleaved as the `.dat` data is.
    func audiowaveformPoints(of path: String, channels: Int, zoom: Int = 256) throws -> [Int16] {
        let samples = try Sox.samples(of: path).map { Int16($0 >> 16) }
        let frames = samples.count / channels
        var points: [Int16] = []
        for start in stride(from: 0, to: frames, by: zoom) {
            for channel in 0..<channels {
                let stretch = (start..<min(start + zoom, frames)).map { samples[$0 * channels + channel] }
                points += [stretch.min()!, stretch.max()!]
            }
        }
        return points
    }

    /// The little-endian 32-bit field at `offset`.
    func field(_ bytes: [UInt8], _ offset: Int) -> Int32 {
        Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) })
    }

    @Test(arguments: [1, 2])
    func aConversionMeasuresTheLowestAndHighestSampleOfEvery256Frames(channels: Int) throws {
        let source = scratch.path("speech-like.wav")
        // A second and a bit of noise with a swelling envelope: the last point covers the 100 frames left over.
        try Sox.synth(to: source, rate: 48000, channels: channels, seconds: 48100.0 / 48000,
                      Array(repeating: "pinknoise", count: channels).joined(separator: " ") + " tremolo 3 90")
        let summary = try AudioFileConverter.convert(
            contentsOf: URL(fileURLWithPath: source), to: scratch.file("copy.wav"), settings: AudioSettings(format: .wav, channelCount: channels))
        let waveform = summary.waveform
        #expect(waveform.sampleRate == 48000 && waveform.samplesPerPixel == 256 && waveform.channelCount == channels)
        #expect(waveform.length == 188, "48100 frames make 187 whole points and one of 100")
        #expect(waveform.data == (try audiowaveformPoints(of: source, channels: channels)))
    }

    @Test func theDatFileHasAudiowaveformsDocumentedHeaderAndData() throws {
        let mono = Waveform(sampleRate: 44100, samplesPerPixel: 256, channelCount: 1, data: [-300, 400, -32768, 32767, 0, 255])
        let bytes = mono.datRepresentation()
        #expect(bytes.count == 20 + 6 * 2)
        #expect(field(bytes, 0) == 1, "version 1 for one channel")
        #expect(field(bytes, 4) == 0, "flags: 16-bit")
        #expect(field(bytes, 8) == 44100 && field(bytes, 12) == 256 && field(bytes, 16) == 3)
        #expect(Array(bytes[20..<24]) == [0xD4, 0xFE, 0x90, 0x01], "int16 little-endian: -300, 400")

        let stereo = Waveform(sampleRate: 48000, samplesPerPixel: 512, channelCount: 2, data: [-256, 511, -1, 1, -32768, 32767, 10, 20])
        let eight = stereo.datRepresentation(bits: .eight)
        #expect(field(eight, 0) == 2 && field(eight, 4) == 1 && field(eight, 16) == 2 && field(eight, 20) == 2,
                "version 2, 8-bit, 2 points, 2 channels")
        #expect(eight.count == 24 + 8)
        #expect(eight[24...].map { Int8(bitPattern: $0) } == [-1, 1, 0, 0, -128, 127, 0, 0], "divided by 256 toward zero")
    }

    @Test func aDatFileReadsBackAndDamagedOnesAreRefused() throws {
        let waveform = Waveform(sampleRate: 16000, samplesPerPixel: 256, channelCount: 2, data: [-5, 7, -9, 11, 3, 4, -2, 2])
        #expect(try Waveform(datRepresentation: waveform.datRepresentation()) == waveform)
        let eight = try Waveform(datRepresentation: waveform.datRepresentation(bits: .eight))
        #expect(eight.data == [0, 0, 0, 0, 0, 0, 0, 0] && eight.length == 2)
        var wrongVersion = waveform.datRepresentation()
        wrongVersion[0] = 3
        var shortData = waveform.datRepresentation()
        shortData.removeLast()
        var oneSamplePerPixel = waveform.datRepresentation()
        oneSamplePerPixel[12...15] = [1, 0, 0, 0]
        for bytes in [[], Array(shortData.prefix(10)), wrongVersion, shortData, oneSamplePerPixel] {
            #expect(throws: Waveform.FormatError.self) { try Waveform(datRepresentation: bytes) }
        }
    }

    @Test func zoomingOutKeepsTheExtremesOfEachRun() {
        let waveform = Waveform(sampleRate: 48000, samplesPerPixel: 256, channelCount: 1, data: [-1, 2, -5, 1, -2, 9, 0, 0, -7, 3])
        let zoomed = waveform.zoomedOut(by: 2)
        #expect(zoomed.samplesPerPixel == 512 && zoomed.data == [-5, 2, -2, 9, -7, 3])
        #expect(waveform.peak(ofPixels: 0..<5) == 9.0 / 32768)
    }

    @Test func aWaveformMeasuredOnTheWayStaysWithinItsBoundByWideningItsPixels() throws {
        let source = scratch.path("noise.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 48100.0 / 48000, "pinknoise pinknoise tremolo 3 90")
        // Within 16 points, 48100 frames take 4096 frames a point (256 doubled four times): 12 points, the last partial.
        let bounded = try AudioFile(forReading: URL(fileURLWithPath: source)).measure(keepingAtMost: 16).waveform
        #expect(bounded.samplesPerPixel == 4096 && bounded.length == 12)
        #expect(bounded == (try Waveform(measuring: AudioFile(forReading: URL(fileURLWithPath: source)), samplesPerPixel: 4096)))
        #expect(Waveform.keptLength == 65_536)
    }

    @Test func aRecordingCarriesTheWaveformOfItsFile() async throws {
        let rig = try RecordingRig()
        let (device, _) = try rig.microphone(seconds: 1, "sine 300 sine 700", channels: 2, volume: 0.4)
        let recorder = try rig.recorder("take.wav", AudioSettings(format: .wav, channelCount: 2), device: device)
        try await rig.record(recorder) { $0.record(forDuration: 0.5) }
        let waveform = try #require(recorder.summary?.waveform)
        let path = rig.scratch.path("take.wav")
        #expect(waveform.length == 94, "24000 frames: 93 points of 256 and one of 192")
        #expect(waveform.data == (try audiowaveformPoints(of: path, channels: 2)))
        #expect(try Waveform(measuring: AudioFile(forReading: URL(fileURLWithPath: path))) == waveform, "measured again from the file, the same")
    }
}
