import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge
import SystemPackage

extension VoiceMemo {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add audio files to the memos.",
            discussion: """
                Reads WAV, CAF, Opus, FLAC, Ogg Vorbis, MP3 and the other formats libsndfile knows, and through \
                FFmpeg what phones and recorders make: M4A (AAC, ALAC: Apple Voice Memos), MP4 and MOV audio, \
                ADTS .aac, WMA and AMR. Without --preset or --format, WAV, CAF, FLAC and Opus files keep their \
                format (16- and 24-bit PCM and FLAC bit for bit, Opus packet for packet), ALAC becomes FLAC \
                (lossless, about half the size of WAV), AAC in an M4A, MP4 or MOV file becomes an M4A memo of its \
                very packets, and other formats become WAV. Rates Opus cannot take are \
                resampled to 48 kHz. The title, date, artist, album, comment and markers (cue points, chapters) \
                come from the file's tags where it has them (--title, --artist, --album and --comment win), else \
                the title is the file's name and the date now.

                A directory imports the audio files in it and in every directory below it (by their extensions; \
                hidden files and the store's own skipped), in order of their paths. '-' reads standard input (titled from its tags, \
                else “Memo” and the date and time). An http:// or https:// address is downloaded whole first, \
                through the cache that play keeps ($XDG_CACHE_HOME/voicememo/http, at most --cache-size): what play \
                downloaded is not downloaded again. On a terminal a bar shows how far the download has come (bytes, \
                rate, time left); elsewhere a line says so at each tenth of it. --header 'Name: value' (repeated for \
                more) is sent with its every request, as play sends it. Each file gets a line; a file that fails is reported on \
                stderr and the others are still imported, and the exit status is then 1.
                """)

        @Argument(help: ArgumentHelp("Audio files, directories of them, http(s) addresses, or '-' for standard input.", valueName: "file"), completion: .file())
        var files: [String]

        /// `--title` names one file's memo, which is otherwise titled from the file.
        enum Title: TitleDefault {
            static let help = ", for a single file (default: the file's own title, else its name)"
        }

        @OptionGroup
        var newMemo: NewMemoOptions<Title>

        @Flag(help: "Print each new memo as one JSON object, a line each.")
        var json = false

        @OptionGroup var http: RequestOptions

        @OptionGroup var cache: CacheSizeOptions

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("Name a file to import, a directory, or '-' for standard input.") }
            if newMemo.title != nil {
                var isDirectory = false
                guard files.count == 1, !(FileManager.default.fileExists(atPath: files[0], isDirectory: &isDirectory) && isDirectory) else {
                    throw ValidationError("--title names one memo: import a single file with it.")
                }
            }
        }

        func run() async throws {
            try cache.apply(for: files)
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            var spool: StandardInputSpool?
            let sources = try ImportSource.sources(files, store: store.directory, spool: &spool)
            var failed = 0
            // Long work (an hour of FLAC) shows how far it has come, on a terminal.
            let progress = WorkProgress(showing: !json)
            defer { progress.finish() }
            for source in sources {
                // An address's download, held while it is imported.
                var spooled: Spool?
                progress.begin()
                do {
                    if !source.url.isFileURL {
                        let report = DownloadReport(name: RemoteAddress.name(of: source.url), progress: progress, printsLines: !json)
                        spooled = try Spool.download(source.url, options: http.assetOptions, report: report)
                        // The conversion's line, like any work's, only once it has taken half a second.
                        progress.begin()
                    }
                    let what = "Importing “\((source.name.split(separator: "/").last.map(String.init) ?? source.name).terminalSafe)”"
                    let (memo, isCutShort) = try importing(
                        spooled?.url ?? source.url, defaultTitle: source.defaultTitle, into: store
                    ) { progress.show(what, fraction: $0) }
                    if json {
                        print(try MemoJSON.line(MemoJSON(memo, in: store)))
                    } else {
                        let summary = SummaryLine(
                            head: "Imported “", title: memo.title.terminalSafe, middle: "” as \(memo.id): ",
                            fields: [
                                Describe.duration(memo.duration),
                                Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels), Describe.size(memo.sizeBytes),
                            ])
                        for line in summary.lines(fittingColumns: TerminalDisplay.outputColumns) { progress.print(line) }
                        if isCutShort { progress.print("  The file is cut short: that is what of it decodes.") }
                    }
                } catch let error where error is AudioFileError || error is SpaceFailure {
                    progress.clear()
                    // Said of the name given, not of the temporary file standard input or a download was saved in.
                    let said: any Error = if let error = error as? AudioFileError, error.path == source.url.path || error.path == spooled?.url.path {
                        AudioFileError(path: source.name, reason: error.reason)
                    } else {
                        error
                    }
                    guard sources.count > 1 else { throw said }
                    failed += 1
                    CurrentProcess.flushOutput()
                    _ = try? FileDescriptor.standardError.writeAll("voicememo: \(String(describing: said).terminalSafe)\n".utf8)
                }
            }
            if sources.isEmpty { throw NoAudioFiles(directories: files) }
            if sources.count > 1, !json {
                let imported = sources.count - failed
                progress.print("Imported \(imported) of \(sources.count) files" + (failed > 0 ? "; \(failed) failed (see above)." : "."))
            }
            if failed > 0 { throw ExitCode.failure }
        }

        /// Imports `file`, telling `progress` how far the conversion has come; returns the memo, and whether the file was
        /// cut short (what decodes of it was imported).
        private func importing(
            _ file: URL, defaultTitle: String?, into store: MemoStore, progress: @escaping (Double) -> Void
        ) throws -> (Memo, isCutShort: Bool) {
            // An Opus file cut short opens only once the store has repaired its copy: the store says why it cannot.
            let source = try? AudioFile(forReading: file)
            let settings = newMemo.encoding.isEmpty ? nil : try newMemo.encoding.settings(for: source ?? AudioFile(forReading: file))
            // The file's own title wins over the default; only standard input has one.
            let title = newMemo.title ?? defaultTitle.map { source?.metadata.title ?? $0 }
            do {
                let imported = try store.importAudio(
                    from: file, title: title, settings: settings, artist: newMemo.tags.artist, album: newMemo.tags.album,
                    comment: newMemo.tags.comment, progress: progress)
                // A FLAC file whose header tells its whole length is found cut only as it is decoded, by the store.
                let decodedLess = source.map { $0.format == .flac && imported.duration < $0.duration - 0.01 } ?? false
                return (imported, (source?.isCutShort ?? false) || decodedLess)
            } catch let error as AudioFileError where error.reason == .noSpace {
                guard let source else { throw error }
                throw SpaceFailure.importing(
                    title ?? source.metadata.title ?? file.deletingPathExtension().lastPathComponent, seconds: source.duration,
                    settings: settings ?? AudioSettings(preserving: source), in: store.directory.path)
            }
        }
    }
}

/// Directories with no audio file in them, nor below.
private struct NoAudioFiles: Error, CustomStringConvertible {
    let directories: [String]

    var description: String {
        "no audio files in " + directories.map { "'\($0)'" }.joined(separator: ", ")
            + " (found by their extensions: " + AudioFile.readableFileExtensions.sorted().joined(separator: ", ") + ")"
    }
}
