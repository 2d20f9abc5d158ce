import AudioIO
import FoundationEssentials
import SystemPackage

extension MemoStore {
    /// Adds the audio file at `source` to the store as a new memo.
    ///
    /// The file is converted through `AudioFileConverter` into `<id>.<extension>` (mode 0600), with the
    /// title, creation date, tags and markers written into the file's own metadata, then listed in the index, its
    /// waveform (measured on the way) kept beside it. The conversion
    /// happens before the store's lock is taken, into a hidden file that is put in place and listed in one hold of
    /// the lock: other processes neither wait for it nor see a file that is not yet a memo.
    ///
    /// - Parameters:
    ///   - source: Any file `AudioFile` reads; every link of a chained Ogg file.
    ///   - title: The memo's title; `nil` uses the file's own title, else its name without extension.
    ///   - settings: How to store it; `nil` keeps it as it is where the store can: WAV and CAF keep their
    ///     container, rate, channels and bit depth (bit-exact for 16- and 24-bit); Opus stays Opus, its packets
    ///     copied as they are (a stream cut short ends with its last whole packet; the links of a chained file, which
    ///     make no one stream, are encoded again one after another); AAC in an MP4 or MOV (an M4A from a phone or
    ///     Apple's Voice Memos) becomes an M4A of its very packets; FLAC stays FLAC and ALAC becomes FLAC; other
    ///     formats (MP3, Vorbis, ADTS AAC, ...) become WAV at their own rate.
    ///   - artist: The memo's artist; `nil` keeps the file's, if it has one.
    ///   - album: The memo's album; `nil` keeps the file's, if it has one.
    ///   - comment: The memo's comment; `nil` keeps the file's, if it has one.
    ///   - progress: Called on the calling thread as the file is converted, with the fraction done (0 to 1), for a long
    ///     import to show; not called for a file whose packets are copied (Opus, AAC), which takes moments.
    /// - Returns: The new memo, with the file's markers (those of the first link of a chained file).
    /// - Throws: `AudioFileError` for a source that cannot be read or a file that cannot be written,
    ///   `AudioSettingsError` for settings that cannot be written, ``MemoStoreError/unstoredFormat(_:)`` for a format
    ///   other than WAV, CAF, Opus, AAC and FLAC, ``MemoStoreError`` for the index.
    public func importAudio(
        from source: URL, title: String? = nil, settings: AudioSettings? = nil, artist: String? = nil, album: String? = nil,
        comment: String? = nil, progress: ((Double) -> Void)? = nil
    ) throws -> Memo {
        try requireChangeable()
        let (inputs, repaired) = try Self.openForImport(source)
        let input = inputs[0]
        guard inputs.contains(where: { $0.frameCount > 0 }) else { throw AudioFileError(path: source.path, reason: .noAudio) }
        let preserving = AudioSettings(preserving: input)
        let settings = settings ?? preserving
        try settings.validate()
        guard Memo.storedFormats.contains(settings.format) else { throw MemoStoreError.unstoredFormat(settings.format) }
        let id = Memo.newID(unlike: try memos())
        let fileName = Memo.fileName(id: id, format: settings.format)
        // Whole seconds: what the file's metadata and the index keep.
        var metadata = input.metadata
        metadata.creationDate = metadata.creationDate ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        metadata.title = title ?? metadata.title ?? source.deletingPathExtension().lastPathComponent
        metadata.artist = artist ?? metadata.artist
        metadata.album = album ?? metadata.album
        metadata.comment = comment ?? metadata.comment
        let destination = directory.appendingPathComponent(fileName)
        // Opus and AAC kept as they are: their packets copied, not decoded and encoded again.
        let copy: StagedAudioFile? = switch input.format {
        case .opus where inputs.count == 1 && settings == preserving:
            try AudioFileConverter.stageOpusCopy(
                of: input.url, beside: destination, metadata: metadata, measuringLoudness: true, permissions: [.ownerReadWrite])
        case .aac where settings == preserving:
            try AudioFileConverter.stageM4ACopy(
                of: input.url, beside: destination, metadata: metadata, measuringLoudness: true, permissions: [.ownerReadWrite])
        default: nil
        }
        let staged = try copy ?? AudioFileConverter.stage(
            reading: inputs, of: source, beside: destination, settings: settings, metadata: metadata, permissions: [.ownerReadWrite],
            measuringLoudness: true, progress: progress)
        withExtendedLifetime(repaired) {}
        let summary = staged.summary
        // As the file keeps them: at its rate, in order, as many as it can hold.
        let markers = metadata.markers.map { $0.resampled(from: input.sampleRate, to: summary.sampleRate) }
            .sorted { $0.framePosition < $1.framePosition }.prefix(AudioMarker.maximumStoredCount)
        metadata.markers = Array(markers.filter { $0.framePosition <= summary.frameCount })
        return try add(staged, as: Memo(id: id, format: settings.format, metadata: metadata, summary: summary))
    }

    /// Puts `staged`, a new memo's file, in place and lists `memo` in the index, its title, markers and waveform kept
    /// beside it, in one hold of the lock.
    func add(_ staged: StagedAudioFile, as memo: Memo) throws -> Memo {
        let placed: Result<Void, AudioFileError> = try update(entering: memo.fileName) { index throws(MemoStoreError) in
            do throws(AudioFileError) {
                try staged.place(at: fileURL(of: memo), replacingExisting: false)
            } catch {
                return .failure(error)
            }
            try keepTitle(memo.title, of: memo.id, fileTitle: Self.storedTitle(memo.title))
            try keepMarkers(memo.markers, of: memo.id, fileHoldsThem: memo.format.keepsMarkers)
            keepWaveform(staged.summary.waveform, of: memo.id)
            index.append(memo)
            return .success(())
        }
        try placed.get()
        return memo
    }

    /// `source` opened for reading: its links when it is a chained Ogg file (see ``AudioFileConverter/openLinks(of:)``),
    /// and an Ogg Opus file cut short (a recording killed mid-page, which libsndfile refuses) read from a copy of its
    /// whole packets, ended where they end, held in the temporary directory while it is needed.
    private static func openForImport(_ source: URL) throws -> ([AudioFile], StagedAudioFile?) {
        do {
            return (try AudioFileConverter.openLinks(of: source), nil)
        } catch {
            let beside = FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-import.opus")
            guard let repaired = try? AudioFileConverter.stageOpusCopy(of: source, beside: beside, metadata: nil, permissions: [.ownerReadWrite])
            else { throw error }
            return ([try AudioFile(forReading: repaired.url)], repaired)
        }
    }

    /// Writes `memo`'s audio to `destination`, converting as asked.
    ///
    /// - Parameters:
    ///   - memo: A memo of this store.
    ///   - destination: The file to create, outside the store; written atomically.
    ///   - format: The target format; `nil` takes it from `destination`'s extension, which must then name a format
    ///     this library writes. The memo's title, date, tags and markers go into it where the format has a place for
    ///     them (see `AudioMetadata`).
    ///   - sampleRate: The target rate in hertz; `nil` keeps the memo's (48 kHz when Opus cannot take it).
    ///   - bitRate: The Opus bit rate in bits per second; `nil` keeps about the memo's, or 32 kb/s per channel.
    ///   - volume: Linear gain, 0…1, as `AudioPlayer.volume`.
    ///   - pan: Balance, −1…1, as `AudioPlayer.pan`; a mono memo becomes stereo when it is not 0.
    ///   - rate: Speed, 0.25…4, pitch kept, as `AudioPlayer.rate`. When any of these three is not its default, the
    ///     memo is played into an `OfflineRenderer` rather than converted.
    ///   - loudness: A loudness in LUFS to bring the memo to (`nil`: as it is), with its true peak kept under −1 dBTP
    ///     (`AudioLoudness.normalizationGain(toLoudness:truePeakLimit:)`): an Opus memo exported to Opus takes the
    ///     gain in its header's output gain, which every decoder applies, its audio packets unchanged; other formats
    ///     have their samples scaled.
    ///   - replacingExisting: Whether a file already at `destination` is replaced; when false (the default) it is
    ///     kept and the export fails with `AudioFileError.Reason.exists`.
    /// - Returns: What was written.
    /// - Throws: ``MemoStoreError/exportIntoStore(path:)`` for a destination inside the store (where it could
    ///   replace another memo's file or the index), ``MemoStoreError/unknownExportFormat(path:)`` when the format
    ///   is neither given nor told by a writable extension, `AudioFileError`, `AudioSettingsError`.
    public func export(
        _ memo: Memo, to destination: URL, format: AudioFileFormat? = nil, sampleRate: Double? = nil, bitRate: Int? = nil,
        volume: Float = 1, pan: Float = 0, rate: Float = 1, normalizingTo loudness: Double? = nil, replacingExisting: Bool = false
    ) throws -> AudioFileSummary {
        if isInside(destination) { throw MemoStoreError.exportIntoStore(path: destination.path) }
        guard let format = format ?? AudioFileFormat(fileExtension: destination.pathExtension).flatMap({ $0.isWritable ? $0 : nil }) else {
            throw MemoStoreError.unknownExportFormat(path: destination.path)
        }
        try AudioFileConverter.refuseExisting(destination, unless: replacingExisting)
        let staged = try stageExport(
            memo, beside: destination, format: format, sampleRate: sampleRate, bitRate: bitRate, volume: volume, pan: pan,
            rate: rate, normalizingTo: loudness)
        return try staged.place(at: destination, replacingExisting: replacingExisting)
    }

    /// Writes `memo`'s audio, as ``export(_:to:format:sampleRate:bitRate:volume:pan:rate:normalizingTo:replacingExisting:)``
    /// does, into a hidden file beside `destination` that is removed when released unplaced: for a file to place, or to
    /// copy elsewhere (standard output) and drop.
    package func stageExport(
        _ memo: Memo, beside destination: URL, format: AudioFileFormat, sampleRate: Double? = nil, bitRate: Int? = nil,
        volume: Float = 1, pan: Float = 0, rate: Float = 1, normalizingTo loudness: Double? = nil,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile {
        if memo.state == .syncing { throw MemoStoreError.stillSyncing(memo.title) }
        let source = fileURL(of: memo)
        let input = try AudioFile(forReading: source)
        let gain = try loudness.map { target in
            try (memo.loudness ?? AudioFile(forReading: source).measureLoudness()).normalizationGain(toLoudness: target)
        } ?? 0
        var settings = AudioSettings(preserving: input, as: format)
        if let sampleRate { settings.sampleRate = sampleRate }
        if let bitRate { settings.bitRate = bitRate }
        var metadata = memo.metadata
        // Opus to Opus and AAC to AAC as they are: their packets copied, not decoded and encoded again (an Opus
        // normalized through its output gain; an AAC one is decoded, scaled and encoded again).
        if input.format == format, settings.sampleRate == input.sampleRate, bitRate == nil, volume == 1, pan == 0, rate == 1 {
            let copy = switch format {
            case .opus:
                try AudioFileConverter.stageOpusCopy(of: source, beside: destination, metadata: metadata, gain: gain, permissions: permissions)
            case .aac where gain == 0:
                try AudioFileConverter.stageM4ACopy(of: source, beside: destination, metadata: metadata, permissions: permissions)
            default: StagedAudioFile?.none
            }
            if let copy { return copy }
        }
        guard volume == 1, pan == 0, rate == 1 else {
            if pan != 0 { settings.channelCount = 2 }
            try settings.validate()
            let renderer = try OfflineRenderer(sampleRate: settings.sampleRate, channelCount: min(settings.channelCount, 2))
            settings.channelCount = renderer.channelCount
            // Sped up or slowed down, the markers stay with what they marked.
            metadata.markers = metadata.markers.map { marker in
                AudioMarker(framePosition: Int64((Double(marker.framePosition) * settings.sampleRate / input.sampleRate / Double(rate)).rounded()),
                            name: marker.name)
            }
            let player = try AudioPlayer(contentsOf: source)
            player.currentDevice = renderer.device
            player.volume = volume
            player.pan = pan
            player.enableRate = rate != 1
            player.rate = rate
            player.gain = Float(gain)
            guard player.play() else {
                if case .failed(let error) = player.status { throw error }
                throw AudioFileError(path: source.path, reason: .noAudio)
            }
            return try renderer.stage(beside: destination, settings: settings, metadata: metadata, permissions: permissions)
        }
        return try AudioFileConverter.stage(
            contentsOf: source, beside: destination, settings: settings, metadata: metadata, gain: gain, permissions: permissions)
    }

    /// Whether `url` names a file in the store's directory or in this machine's state of it, after every symbolic link
    /// on the way to it is followed.
    func isInside(_ url: URL) -> Bool {
        let parent = url.standardizedFileURL.deletingLastPathComponent().resolvingSymlinksInPath().path
        let target = url.standardizedFileURL.resolvingSymlinksInPath().path
        // The machine's state of the store too: its index and lock are the store's, kept elsewhere.
        return [directory, localStateDirectory].contains { folder in
            let store = folder.resolvingSymlinksInPath().path
            return parent == store || target.hasPrefix(store + "/")
        }
    }
}
