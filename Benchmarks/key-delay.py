#!/usr/bin/env python3
"""Key-to-sound delays of `voicememo play` on a PulseAudio sink, measured on the sink's monitor.

Usage: key-delay.py REPS VOICEMEMO     (PULSE_SERVER set, the sink's monitor its default source)
       key-delay.py --check VOICEMEMO  (shows that the measurement sees a delay where there is one)

Each repetition plays a file on a terminal of its own (a pty, so that keys are read) with `--no-meter`, reads the
sink's monitor with parec in 5 ms steps, noting the wall clock at every read, and types keys once the tone has been
heard for 1.5 s:
  pause   space: when the tone stops, from the key;
  resume  space again a second later: when it sounds again;
  seek    → in a file whose tone ends 3 s in: the seek to 6.5 s lands in its silence; when the tone stops;
  rate    + (×1.25) in the same file, 1.5 s in: the tone then ends 1.2 s after the key rather than 1.5 s; the later
          the new rate is heard, the later it ends, a fifth of the delay: delay = (end − key − 1.2 s) × 5.
Prints one JSON object: each key's median delay in milliseconds, and "runs", every repetition's.

A sample's time is the wall time of the read that brought it, less the samples after it in that read. The monitor
hands audio over about 5 ms after the sink played it, so pause, resume and seek read up to ~5 ms long; rate
multiplies its errors (of the position heard when the key came, of the tone's end) by five: ±25 ms. A delay below
the measurement's resolution reads as a few milliseconds either side of 0: what counts is that it cannot read 0
when the audio goes on. `--check` shows that: a key voicememo ignores must leave the tone sounding for the whole
second after it, and a player whose queue of 0.5 s plays out after its key (pacat fed by a pipe that stops) must
read at least 0.4 s.
"""
import array, json, os, pty, select, statistics, subprocess, sys, tempfile, time, wave, math

RATE = 48000
LOUD = 1000  # the tones peak at 16384: a sample above this is tone, not silence
QUIET = 0.2  # seconds without a loud sample that make a silence


def tone_file(path, seconds, tone_seconds):
    """A stereo 16-bit file: a 440 Hz tone at half scale for `tone_seconds`, then silence to `seconds`."""
    with wave.open(path, "wb") as file:
        file.setnchannels(2)
        file.setsampwidth(2)
        file.setframerate(RATE)
        frames = array.array("h")
        for index in range(int(seconds * RATE)):
            value = int(round(16384 * math.sin(2 * math.pi * 440 * index / RATE))) if index < tone_seconds * RATE else 0
            frames.extend((value, value))
        file.writeframes(frames.tobytes())


class Session:
    """A player on a pty and the monitor read beside it; `keys` are typed as `plan` says."""

    def __init__(self, command):
        self.parec = subprocess.Popen(
            ["parec", "--latency-msec=5", "--raw", "--format=s16le", "--channels=1", f"--rate={RATE}"],
            stdout=subprocess.PIPE)
        self.pid, self.terminal = pty.fork()
        if self.pid == 0:
            os.execvp(command[0], command)
        self.times = array.array("d")  # the wall time of each sample
        self.samples = array.array("h")
        self.keys = []  # (key, wall time)

    def run(self, plan):
        """`plan(now, heard_for)` returns the key to type now, b"" to go on, or None to stop."""
        heard_since = None
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([self.parec.stdout, self.terminal], [], [], 0.05)
                if self.terminal in ready:
                    try:
                        os.read(self.terminal, 4096)
                    except OSError:
                        pass
                if self.parec.stdout not in ready:
                    continue
                chunk = os.read(self.parec.stdout.fileno(), 4096)
                now = time.monotonic()
                read = array.array("h", chunk[: len(chunk) // 2 * 2])
                self.samples.extend(read)
                self.times.extend(now - (len(read) - 1 - index) / RATE for index in range(len(read)))
                loud = any(abs(sample) > LOUD for sample in read)
                heard_since = (heard_since or now) if loud or self.keys else None
                key = plan(now, now - heard_since if heard_since else 0)
                if key is None:
                    break
                if key:
                    os.write(self.terminal, key)
                    self.keys.append((key, time.monotonic()))
        finally:
            os.write(self.terminal, b"q")
            os.waitpid(self.pid, 0)
            self.parec.kill()
            self.parec.wait()
        if not self.keys:
            sys.exit("key-delay.py: the tone was never heard on the monitor")

    def loud_times(self, after):
        return [when for when, sample in zip(self.times, self.samples) if when >= after and abs(sample) > LOUD]

    def first_loud(self, after):
        """The time of the first loud sample after `after`, or None."""
        loud = self.loud_times(after)
        return loud[0] if loud else None

    def silence_start(self, after):
        """The time of the last loud sample before the first silence of QUIET seconds after `after`, or None when the
        tone went on."""
        previous = after
        for when in self.loud_times(after):
            if when - previous > QUIET:
                return previous
            previous = when
        return previous if self.times and self.times[-1] - previous > QUIET else None


def plan_keys(steps, listen=1.0):
    """A plan: after 1.5 s of tone, each (key, seconds after the one before) in turn, then `listen` seconds more."""
    state = {"index": 0, "last": None}

    def plan(now, heard_for):
        if state["last"] is None:
            if heard_for < 1.5:
                return b""
        elif state["index"] >= len(steps):
            return None if now - state["last"] > listen else b""
        elif now - state["last"] < steps[state["index"]][1]:
            return b""
        key = steps[state["index"]][0]
        state["index"] += 1
        state["last"] = now
        return key
    return plan


def milliseconds(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


def pause_and_resume(command):
    session = Session(command)
    session.run(plan_keys([(b" ", 0), (b" ", 1.0)]))
    (_, pause_key), (_, resume_key) = session.keys
    stopped = session.silence_start(pause_key - 0.5)
    pause = stopped - pause_key if stopped is not None and stopped < resume_key else None
    resumed = session.first_loud(resume_key - 0.05)
    return milliseconds(pause), milliseconds(None if resumed is None else resumed - resume_key)


def seek(command):
    session = Session(command)
    session.run(plan_keys([(b"\x1b[C", 0)]))
    key = session.keys[0][1]
    stopped = session.silence_start(key - 0.5)
    # Without the seek the tone would go on for 1.5 s.
    return milliseconds(stopped - key if stopped is not None and stopped - key < 1.0 else None)


def rate(command, tone_seconds):
    session = Session(command)
    # Without the new rate the tone ends 1.5 s after the key, with it 1.2 s.
    session.run(plan_keys([(b"+", 0)], listen=2.0))
    key = session.keys[0][1]
    onset = session.first_loud(0)
    ended = session.silence_start(key)
    if onset is None or ended is None:
        return None
    position = key - onset
    return milliseconds(((ended - key) - (tone_seconds - position) / 1.25) * 5)


def measure(reps, voicememo, directory):
    steady = os.path.join(directory, "tone.wav")
    step = os.path.join(directory, "step.wav")
    tone_file(steady, 20, 20)
    tone_file(step, 20, 3)
    play = lambda path: [voicememo, "play", path, "--device", "pulse", "--no-meter"]
    runs = {"pause": [], "resume": [], "seek": [], "rate": []}
    for _ in range(reps):
        pause, resume = pause_and_resume(play(steady))
        runs["pause"].append(pause)
        runs["resume"].append(resume)
        runs["seek"].append(seek(play(step)))
        runs["rate"].append(rate(play(step), 3))
    # A key that did nothing (None) counts as no delay that could be measured: the median of the others would hide it.
    medians = {key: (statistics.median(values) if None not in values else None) for key, values in runs.items()}
    print(json.dumps({**medians, "runs": runs}))


def check(voicememo, directory):
    steady = os.path.join(directory, "tone.wav")
    tone_file(steady, 20, 20)
    # A key voicememo does not know: the tone must not stop.
    session = Session([voicememo, "play", steady, "--device", "pulse", "--no-meter"])
    session.run(plan_keys([(b"x", 0)]))
    ignored = session.silence_start(session.keys[0][1] - 0.5)
    ignored = None if ignored is None else ignored - session.keys[0][1]
    # A player with 0.5 s queued on the server, whose feed stops at the key: the queue plays out.
    feeder = os.path.join(directory, "feeder.py")
    with open(feeder, "w") as file:
        file.write(
            "import os, select, subprocess, sys, tty\n"
            "tty.setcbreak(0)\n"
            f"tone = open({steady!r}, 'rb').read()[44:]\n"
            "player = subprocess.Popen(['pacat', '--latency-msec=500', '--raw', '--format=s16le', '--channels=2',"
            " '--rate=48000'], stdin=subprocess.PIPE)\n"
            "offset = 0\n"
            "while not select.select([0], [], [], 0)[0]:\n"
            "    player.stdin.write(tone[offset:offset + 1920]); player.stdin.flush(); offset += 1920\n"
            "os.read(0, 1); os.read(0, 1)\n"
            "player.kill()\n")
    session = Session([sys.executable, feeder])
    session.run(plan_keys([(b" ", 0)]))
    stopped = session.silence_start(session.keys[0][1] - 0.5)
    queued = None if stopped is None else stopped - session.keys[0][1]
    print(json.dumps({"ignoredKey": "tone stopped %.1f ms after it" % (ignored * 1000) if ignored is not None else "tone went on",
                      "queuedPlayer": milliseconds(queued)}))
    if ignored is not None or queued is None or queued < 0.4:
        sys.exit("key-delay.py: the measurement cannot be trusted: it saw no delay where there is one")


with tempfile.TemporaryDirectory(prefix="voicememo-test-keydelay-") as directory:
    if sys.argv[1] == "--check":
        check(sys.argv[2], directory)
    else:
        measure(int(sys.argv[1]), sys.argv[2], directory)
