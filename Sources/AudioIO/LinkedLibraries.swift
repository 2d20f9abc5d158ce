/// The C libraries AudioIO runs on, as they name themselves at run time.
public enum LinkedLibraries {
    /// One entry per library, e.g. `["alsa-lib 1.2.8", "libsndfile-1.2.0", "libopus 1.3.1", "libsoxr-0.1.3",
    /// "SoundTouch 2.3.2", "libebur128 1.2.6", "libavformat 59.27.100", "libavcodec 59.37.100", "libcurl 7.88.1"]`.
    public static var versions: [String] {
        [
            ALSALibrary.version, SndFile.version, OpusLibrary.version, Resampler.version, TimeStretcher.version,
            LoudnessMeter.version,
        ]
            + FFmpegInput.versions + [HTTPConnection.libraryVersion]
    }
}
