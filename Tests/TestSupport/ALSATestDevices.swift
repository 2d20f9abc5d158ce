import Foundation

/// ALSA devices for tests, defined in a configuration of our own that alsa-lib reads instead of the
/// system's (which it still loads first, so `null`, `file`, `pulse` and the rest stay available):
///
/// - `testmic:'IN.raw'[,RATE[,CHANNELS]]`: a microphone of known content. A `file` PCM whose `infile`
///   is `IN.raw`, signed 16-bit little-endian interleaved frames at `RATE` hertz (default 48000) with
///   `CHANNELS` channels (default 1), in front of the `null` PCM, behind a `plug` that converts to
///   whatever the program asks for (16-bit to 32-bit and mono to stereo exactly). It is unclocked:
///   capture runs as fast as the program reads. The infile is read once, from its start when the PCM
///   is opened; past its end the capture returns stale buffer contents, not silence, so make it at least
///   as long as what a test records.
/// - `testpulse:'unix:SOCKET'[,DEVICE]`: PulseAudio's ALSA plugin talking to the server at `SOCKET`
///   (see ``PulseAudioServer/device``), playing to its default sink and recording its default source
///   unless `DEVICE` names another.
///
/// Call ``install()`` before the process opens its first PCM: alsa-lib reads its configuration once.
public enum ALSATestDevices {
    /// The configuration file, written once per process.
    private static let configuration = Result<URL, any Error> {
        let url = configurationURL
        try text.write(to: url, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", url.path, 1)
        atexit { try? FileManager.default.removeItem(at: ALSATestDevices.configurationURL) }
        return url
    }

    private static var configurationURL: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-alsa-\(getpid()).conf")
    }

    /// Makes the test devices known to alsa-lib in this process and in the processes it starts (through
    /// `ALSA_CONFIG_PATH`). Idempotent; cheap after the first call.
    public static func install() throws {
        _ = try configuration.get()
    }

    /// The environment a child process needs to see the test devices (this process's already has it
    /// after ``install()``).
    public static func environment() throws -> [String: String] {
        ["ALSA_CONFIG_PATH": try configuration.get().path]
    }

    /// The PCM name of a microphone that captures `raw` (signed 16-bit little-endian interleaved
    /// frames at `rate` hertz with `channels` channels), after ``install()``.
    public static func microphone(raw: String, rate: Int = 48000, channels: Int = 1) throws -> String {
        try install()
        return "testmic:'\(raw)',\(rate),\(channels)"
    }

    /// Converts the audio file at `path` into a microphone infile, `path` + `.raw` (sox does any rate or
    /// channel conversion), and returns the PCM name of a microphone that captures it.
    public static func microphone(playing path: String, rate: Int = 48000, channels: Int = 1) throws -> String {
        let raw = path + ".raw"
        try Tool.output("sox", ["-D", path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L",
                                "-r", "\(rate)", "-c", "\(channels)", raw])
        return try microphone(raw: raw, rate: rate, channels: channels)
    }

    private static let text = """
        </usr/share/alsa/alsa.conf>

        pcm.testmic {
        \t@args [ INFILE RATE CHANNELS ]
        \t@args.INFILE { type string }
        \t@args.RATE { type integer default 48000 }
        \t@args.CHANNELS { type integer default 1 }
        \ttype plug
        \tslave {
        \t\tpcm {
        \t\t\ttype file
        \t\t\tslave.pcm null
        \t\t\tfile "/dev/null"
        \t\t\tinfile $INFILE
        \t\t\tformat raw
        \t\t}
        \t\tformat S16_LE
        \t\trate $RATE
        \t\tchannels $CHANNELS
        \t}
        }

        pcm.testpulse {
        \t@args [ SERVER DEVICE ]
        \t@args.SERVER { type string }
        \t@args.DEVICE { type string default "" }
        \ttype pulse
        \tserver $SERVER
        \tdevice $DEVICE
        }

        """
}
