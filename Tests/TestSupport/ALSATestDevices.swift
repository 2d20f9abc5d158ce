import Foundation

/// ALSA devices for tests, defined in a configuration of our own that alsa-lib reads instead of the
/// system's (which it still loads first, so `null`, `file`, `pulse` and the rest stay available):
///
/// - `testmic:'IN.raw'`: a microphone of known content. A `file` PCM whose `infile` is `IN.raw`, in
///   front of the `null` PCM. It takes any format, rate and channel count, and its captured frames are
///   the infile's bytes read as that format: make the infile in the format the program negotiates
///   (AudioIO's recordings ask for their own format, see ``microphone(playing:format:rate:channels:)``). No `plug` sits in front of it: through one that converts,
///   alsa-lib's `file` plugin reads its infile more often than the program reads, and periods go missing.
///   It is unclocked: capture runs as fast as the program reads. The infile is read once, from its start
///   when the PCM is opened; past its end the capture returns stale buffer contents, not silence, so
///   make it at least as long as what a test records.
/// - `testpulse:'unix:SOCKET'[,DEVICE]`: PulseAudio's ALSA plugin talking to the server at `SOCKET`
///   (see ``PulseAudioServer/device``), playing to its default sink and recording its default source
///   unless `DEVICE` names another.
/// - Sound cards with jack controls (see ``TestSoundCard``): the control device `hw:N` is redefined as
///   the external control plugin of `Tests/Fixtures/ctl_testjack.c` (compiled here with `cc`), which
///   shows card N's jacks as a test sets them; `testcard:N` is a `null` PCM standing for card N's
///   playback or capture device, named as a card's own PCMs are (`hw:N`, `front:N`). This process's
///   `AudioSession.shared` watches ``cardDirectory`` for cards (through `AUDIOIO_SND_DIR`), as it would
///   /dev/snd.
/// - `testbusy:'LOCK'`: a device one opener holds at a time, as a card's `hw` PCM: the external PCM plugin of
///   `Tests/Fixtures/pcm_testbusy.c` takes an exclusive `flock` on the file `LOCK` as it opens, and fails with
///   `EBUSY` while anyone else holds it — another opener, or a test standing for another program
///   (``HeldDevice``). It captures silence and plays into nothing, in real time; `testbusy:'LOCK','FILE'` also appends
///   what is played to the raw file `FILE` as it is written (``HeldDevice/output(into:)``).
/// - `testclockedmic:'LOCK','IN.raw','ORIGIN'`: the same device, capturing a microphone on the monotonic clock: it hears
///   `IN.raw` (frames in the format the program opens it in) from the monotonic time `ORIGIN` (nanoseconds) on, and
///   silence before and after, so that what is said before a program starts capturing is not captured, as from a real
///   microphone; a program that falls a whole buffer behind in its reads overruns, as on a sound card
///   (``clockedMicrophone(playing:)``). `testclockedmic:'LOCK','IN.raw','ORIGIN','STALL'` also holds the read that
///   captures the file's first frame for `STALL` nanoseconds, as a system that runs the capture thread late.
///
/// Call ``install()`` before the process opens its first PCM: alsa-lib reads its configuration once.
public enum ALSATestDevices {
    /// The configuration file, written once per process with the plugin beside it.
    private static let configuration = Result<URL, any Error> {
        let url = directory.appendingPathComponent("alsa.conf")
        try FileManager.default.createDirectory(at: jackDirectory, withIntermediateDirectories: true)
        try compilePlugin("ctl_testjack", into: plugin)
        try compilePlugin("pcm_testbusy", into: busyPlugin)
        try text.write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: cardDirectory, withIntermediateDirectories: true)
        setenv("ALSA_CONFIG_PATH", url.path, 1)
        setenv("AUDIOIO_SND_DIR", cardDirectory.path, 1)
        atexit { try? FileManager.default.removeItem(at: ALSATestDevices.directory) }
        return url
    }

    private static var directory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-alsa-\(getpid())")
    }

    private static var plugin: URL { directory.appendingPathComponent("libasound_module_ctl_testjack.so") }
    private static var busyPlugin: URL { directory.appendingPathComponent("libasound_module_pcm_testbusy.so") }

    /// Builds the plugin `Fixtures/NAME.c` with `cc`, its messages going to a file and the child waited for right here:
    /// this runs in the configuration's one-time initialisation, which other tests' threads may be
    /// blocked on, and ``Tool/run`` would read the pipes on a dispatch queue those threads hold up.
    private static func compilePlugin(_ name: String, into plugin: URL) throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name).c")
        let log = directory.appendingPathComponent("cc.log").path
        let arguments = ["cc", "-DPIC", "-shared", "-fPIC", "-o", plugin.path, source.path, "-lasound"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        try actions.closeDescriptors(from: 3)
        var attributes = posix_spawnattr_t.defaultSignals()
        defer { posix_spawnattr_destroy(&attributes) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, "cc", &actions, &attributes, argv, environ)
        guard started == 0 else { throw SpawnFailure(description: "cannot start cc: \(String(cString: strerror(started)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else {
            throw SpawnFailure(description: "cc cannot build \(source.path): " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        }
    }

    /// The card directory of this process's shared session, for ``TestSoundCard``s (programs the tests
    /// start watch one of their own, see ``Tool/environment``).
    public static var cardDirectory: URL { directory.appendingPathComponent("snd") }

    /// Where the test cards' jack states are: one file `cardN` per card, one `NAME=0|1` line per jack.
    static var jackDirectory: URL { directory.appendingPathComponent("jacks") }

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

    /// The PCM name of a microphone that captures `raw` (frames in the format the program asks for),
    /// after ``install()``.
    public static func microphone(raw: String) throws -> String {
        try install()
        return "testmic:'\(raw)'"
    }

    /// The layout of a microphone's samples: the sample format a program asks a capture device for.
    public enum SampleFormat: Sendable {
        /// `S16_LE`: what AudioIO asks for a 16-bit recording.
        case int16
        /// `S24_3LE`: what it asks for a 24-bit recording.
        case int24
        /// `S32_LE`: what its meters ask for.
        case int32
        /// `FLOAT_LE`: what it asks for a 32-bit float or an Opus recording.
        case float32

        /// sox's name of the encoding and its bits per sample.
        var soxArguments: [String] {
            switch self {
            case .int16: ["-e", "signed-integer", "-b", "16"]
            case .int24: ["-e", "signed-integer", "-b", "24"]
            case .int32: ["-e", "signed-integer", "-b", "32"]
            case .float32: ["-e", "floating-point", "-b", "32"]
            }
        }
    }

    /// Converts the audio file at `path` into a microphone infile, `path` + `.raw`, of little-endian frames of
    /// `format` at `rate` hertz with `channels` channels, and returns the PCM name of a microphone that captures it.
    /// Make it in the format the program asks for (see ``SampleFormat``): the defaults are a 16-bit mono
    /// recording's. sox converts, without dither: 16-bit samples reach a 32-bit infile as `s << 16` exactly.
    public static func microphone(playing path: String, format: SampleFormat = .int16, rate: Int = 48000, channels: Int = 1) throws -> String {
        let raw = path + ".raw"
        try Tool.output("sox", ["-D", path, "-t", "raw"] + format.soxArguments + ["-L", "-r", "\(rate)", "-c", "\(channels)", raw])
        return try microphone(raw: raw)
    }

    /// Converts the mono 48 kHz audio file at `path` into an infile of 32-bit float frames (what AudioIO asks an external
    /// plugin's PCM for first, as it asks a sound server's) for a microphone on the monotonic clock: what a program
    /// captures from it depends on when it starts (``ClockedMicrophone/device(hearingFrom:)``).
    public static func clockedMicrophone(playing path: String) throws -> ClockedMicrophone {
        try install()
        let raw = path + ".raw"
        try Tool.output("sox", ["-D", path, "-t", "raw"] + SampleFormat.float32.soxArguments + ["-L", "-r", "48000", "-c", "1", raw])
        return ClockedMicrophone(raw: raw)
    }

    /// A microphone on the monotonic clock that hears an audio file (``clockedMicrophone(playing:)``).
    public struct ClockedMicrophone: Sendable {
        let raw: String

        /// The PCM name of the microphone hearing the file from `origin` on (a `CLOCK_MONOTONIC` reading in
        /// nanoseconds, ``ALSATestDevices/monotonicNow``), silence before and after. With a `stall`, the read that
        /// captures the file's first frame takes that much longer, as a capture thread the system runs late.
        public func device(hearingFrom origin: Int64, stall: Duration = .zero) -> String {
            "testclockedmic:'\(raw).lock','\(raw)','\(origin)','\(stall / .nanoseconds(1))'"
        }
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds: the clock a ``ClockedMicrophone`` hears by.
    public static var monotonicNow: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    private static var text: String { """
        </usr/share/alsa/alsa.conf>

        pcm.testmic {
        \t@args [ INFILE ]
        \t@args.INFILE { type string }
        \ttype file
        \tslave.pcm null
        \tfile "/dev/null"
        \tinfile $INFILE
        \tformat raw
        }

        ctl_type.testjack {
        \tlib "\(plugin.path)"
        }

        ctl.!hw {
        \t@args [ CARD ]
        \t@args.CARD { type string }
        \ttype testjack
        \tcard $CARD
        \tjacks "\(jackDirectory.path)"
        }

        pcm_type.testbusy {
        \tlib "\(busyPlugin.path)"
        }

        pcm.testbusy {
        \t@args [ LOCK FILE ]
        \t@args.LOCK { type string }
        \t@args.FILE { type string default "" }
        \ttype testbusy
        \tlock $LOCK
        \tfile $FILE
        }

        pcm.testclockedmic {
        \t@args [ LOCK INFILE ORIGIN STALL ]
        \t@args.LOCK { type string }
        \t@args.INFILE { type string }
        \t@args.ORIGIN { type string }
        \t@args.STALL { type string default "0" }
        \ttype testbusy
        \tlock $LOCK
        \tinfile $INFILE
        \torigin $ORIGIN
        \tstall $STALL
        }

        pcm.testcard {
        \t@args [ CARD ]
        \t@args.CARD { type integer }
        \ttype null
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
}

#if canImport(Testing)
import Testing

/// The test microphone itself, checked with alsa-utils' arecord, so that a broken rig is told apart from a
/// broken library.
@Suite struct ALSATestDevicesTests {
    @Test func theTestMicrophoneCapturesItsInfileExactly() throws {
        let scratch = try ScratchDirectory()
        let tone = scratch.path("tone.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let microphone = try ALSATestDevices.microphone(playing: tone, format: .int32, channels: 2)
        let captured = scratch.path("captured.raw")
        try Tool.output("arecord", ["-q", "-D", microphone, "-f", "S32_LE", "-r", "48000", "-c", "2", "-s", "24000",
                                    "--period-size=480", "--buffer-size=1920", "-t", "raw", captured])
        #expect(try Data(contentsOf: URL(fileURLWithPath: captured)) == Data(contentsOf: URL(fileURLWithPath: tone + ".raw")))
    }
}
#endif
