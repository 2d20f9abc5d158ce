import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge
import SystemPackage

extension VoiceMemo {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a memo's audio to a file.",
            discussion: """
                The format comes from --format, else OUT_PATH's extension (.wav, .caf, .opus, .flac, .ogg for \
                Vorbis, .mp3, .aiff, .m4a for AAC-LC). When OUT_PATH is a directory, the file is named after the \
                memo's title, in the memo's own format unless --format says otherwise; '-' writes to standard output, \
                in the --format given. The file appears whole or not at all; an existing one is kept unless --force, \
                and nothing is written inside the memo store. The memo's title, date, artist, album and comment go \
                into the file's tags, and its markers where the format has a place for them (WAV cue points, \
                CHAPTERnnn comments in Opus, FLAC and Vorbis, M4A and MP3 chapters; not CAF, AIFF). An Opus memo \
                exported to Opus, and an M4A memo to M4A, keep their audio packets as they are (no second \
                encoding). --volume, --pan and --rate write the memo as 'play' would sound it: e.g. --rate 1.5 for a \
                lecture sped up with its pitch kept. --normalize -16 writes it at -16 LUFS, or as near as its true peak allows \
                under -1 dBTP (it says which): in an Opus file's output gain, which every player applies, with its audio packets still as \
                they are; in the samples of other formats (an M4A's AAC is then encoded again). Markers stay where \
                they were in the audio.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Argument(help: ArgumentHelp(
            "Where to write the audio file, a directory to write it into, or '-' for standard output.", valueName: "out-path"))
        var outPath: String

        @Option(help: "The file format (ogg: Vorbis; aac, also called m4a: AAC-LC in an .m4a file).")
        var format: ExportFormatArgument?

        @Option(help: ArgumentHelp(
            "Frames per second (Opus: 8000, 12000, 16000, 24000 or 48000; MP3: 8000 to 48000, e.g. 44100).", valueName: "hz"))
        var sampleRate: Double?

        @Option(help: ArgumentHelp(
            "Opus or M4A bit rate in bits per second, e.g. 64000 (FLAC, Vorbis and MP3 are written at a set quality).", valueName: "bps"))
        var bitrate: Int?

        @OptionGroup var sound: SoundOptions

        @Flag(help: "Replace a file that exists at OUT_PATH.")
        var force = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = try store.memo(matching: memo)
            if outPath == "-" {
                guard let format else { throw StandardOutputNeedsFormat() }
                return try writeToStandardOutput(memo, of: store, format: format.format)
            }
            var destination = URL(fileURLWithPath: outPath)
            var isDirectory = false
            var chosenFormat = format?.format
            if FileManager.default.fileExists(atPath: outPath, isDirectory: &isDirectory), isDirectory {
                let format = chosenFormat ?? memo.format
                chosenFormat = format
                destination = destination.appendingPathComponent(Self.fileName(for: memo.title, extension: format.fileExtension))
            }
            let summary: AudioFileSummary
            do {
                summary = try store.export(
                    memo, to: destination, format: chosenFormat, sampleRate: sampleRate, bitRate: bitrate,
                    volume: sound.volume, pan: sound.pan, rate: sound.rate, normalizingTo: sound.normalize, replacingExisting: force)
            } catch let error as AudioFileError where error.reason == .exists {
                throw ExportTargetExists(path: error.path)
            }
            let written = try AudioFile(forReading: destination)
            print("Exported “\(memo.title.terminalSafe)” to \(destination.path.terminalSafe): \(Describe.duration(summary.duration)), "
                + "\(Describe.format(written.format, sampleRate: summary.sampleRate, channels: summary.channelCount)), "
                + Describe.size(summary.byteCount) + normalization(of: memo, in: store))
        }

        /// `, at -16.0 LUFS (+3.2 dB)` for `--normalize`, or the loudness the memo's true peak let it reach and why, as the
        /// export measured it (the memo's loudness, else its file's); nothing without it.
        private func normalization(of memo: Memo, in store: MemoStore) -> String {
            guard let target = sound.normalize,
                  let loudness = memo.loudness ?? (try? AudioFile(forReading: store.fileURL(of: memo)).measureLoudness())
            else { return "" }
            return "," + Describe.normalization(to: target, of: loudness)
        }

        /// Writes the memo to standard output: whole, into a hidden temporary file first (WAV, CAF, FLAC and MP3 go
        /// back to their start to finish their headers, which a pipe cannot), then copied. A reader that goes away ends
        /// the copy quietly, as `list | head` does; the temporary file goes either way.
        private func writeToStandardOutput(_ memo: Memo, of store: MemoStore, format: AudioFileFormat) throws {
            if Terminal(.standardOutput) != nil {
                throw OutputFailure(reason: "standard output is a terminal; redirect it to a file or a pipe ('> memo.\(format.fileExtension)')")
            }
            let beside = FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-export.\(format.fileExtension)")
            let staged = try store.stageExport(
                memo, beside: beside, format: format, sampleRate: sampleRate, bitRate: bitrate, volume: sound.volume,
                pan: sound.pan, rate: sound.rate, normalizingTo: sound.normalize, permissions: [.ownerReadWrite])
            let file: FileDescriptor
            do {
                file = try FileDescriptor.open(staged.url.path, .readOnly, options: [.closeOnExec])
            } catch {
                throw OutputFailure(reason: "cannot read the temporary file back: \(error)")
            }
            defer { try? file.close() }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            do {
                while case let count = try buffer.withUnsafeMutableBytes({ try file.read(into: $0) }), count > 0 {
                    _ = try FileDescriptor.standardOutput.writeAll(buffer[..<count])
                }
            } catch Errno.brokenPipe {
                // The reader has gone: it has what it wanted.
            } catch {
                throw OutputFailure(reason: "\(error)")
            }
        }

        /// A file name from a title and an extension: path separators and control characters replaced, never empty
        /// or hidden, and within the 255 bytes a name may have, cut on a character boundary.
        static func fileName(for title: String, extension: String) -> String {
            let replaced = title.map { $0 == "/" || $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "_" : $0 }
            let cleaned = replaced.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
            let name = String(cleaned.drop { $0 == "." })
            return (name.isEmpty ? "memo" : String(name.prefix(utf8Bytes: 255 - 1 - `extension`.utf8.count))) + "." + `extension`
        }
    }

    /// The formats export writes, as the command line names them: AAC-LC is `aac`, as `info` and `list` show it, and
    /// `m4a`, its file's extension, is taken for it too.
    enum ExportFormatArgument: String, ExpressibleByArgument, CaseIterable {
        case wav, caf, opus, flac, ogg, mp3, aiff, aac

        init?(argument: String) {
            self.init(rawValue: argument == "m4a" ? "aac" : argument)
        }

        var format: AudioFileFormat {
            switch self {
            case .wav: .wav
            case .caf: .caf
            case .opus: .opus
            case .flac: .flac
            case .ogg: .vorbis
            case .mp3: .mp3
            case .aiff: .aiff
            case .aac: .aac
            }
        }
    }

    /// `-` without `--format`: standard output has no name to tell the format by.
    struct StandardOutputNeedsFormat: Error, CustomStringConvertible {
        var description: String {
            "writing to standard output ('-') needs --format: "
                + ExportFormatArgument.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// Standard output could not take the exported audio.
    struct OutputFailure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot write the audio to standard output: \(reason)" }
    }

    /// An export target that exists, and no --force.
    struct ExportTargetExists: Error, CustomStringConvertible {
        let path: String
        var description: String { "'\(path)' exists already; pass --force to replace it, or pick another name" }
    }
}
