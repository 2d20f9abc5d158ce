import AudioIO
import Foundation

/// What the index records of an audio file, read from the file itself (one pass for the levels).
struct AudioFileFacts {
    let format: AudioFileFormat
    let sampleRate: Double
    let channelCount: Int
    let duration: Double
    let byteCount: Int64
    let metadata: AudioMetadata
    let levels: AudioLevels

    init(url: URL) throws {
        let file = try AudioFile(forReading: url)
        format = file.format
        sampleRate = file.sampleRate
        channelCount = file.channelCount
        duration = file.duration
        metadata = file.metadata
        levels = try file.measureLevels()
        byteCount = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
    }
}
