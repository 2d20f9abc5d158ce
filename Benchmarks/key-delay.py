#!/usr/bin/env python3
"""Key-to-sound delay of `voicememo play` on a PulseAudio sink, measured on the sink's monitor.

Usage: key-delay.py REPS VOICEMEMO MEMO_ID  (PULSE_SERVER and VOICEMEMO_HOME set; the memo a steady tone)

Each repetition plays the memo on a terminal of its own (a pty, so that keys are read), waits until the tone has
been heard for 1.5 s, types a space (pause), and finds on the monitor, read by parec in 5 ms steps with the wall
clock noted at every read, when the tone stopped. Prints the median delay in milliseconds from the key to the
silence. The monitor's own latency (about 5 ms) is counted in: what is printed is at most a few ms long.
"""
import array, os, pty, select, statistics, subprocess, sys, time

RATE = 48000
reps, voicememo, memo = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def one():
    parec = subprocess.Popen(["parec", "--latency-msec=5", "--raw", "--format=s16le", "--channels=1", f"--rate={RATE}"],
                             stdout=subprocess.PIPE)
    reads = []  # (wall time after the read, samples so far, the samples)
    total = 0
    pid, terminal = pty.fork()
    if pid == 0:
        os.execvp(voicememo, [voicememo, "play", memo, "--device", "pulse", "--no-meter"])
    key_at = None
    heard_since = None
    deadline = time.monotonic() + 15
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([parec.stdout, terminal], [], [], 0.05)
            if terminal in ready:
                try:
                    os.read(terminal, 4096)
                except OSError:
                    pass
            if parec.stdout not in ready:
                continue
            chunk = os.read(parec.stdout.fileno(), 4096)
            now = time.monotonic()
            samples = array.array("h", chunk[: len(chunk) // 2 * 2])
            total += len(samples)
            reads.append((now, total, samples))
            loud = max((abs(s) for s in samples), default=0) > 1000
            if key_at is None:
                heard_since = (heard_since or now) if loud else None
                if heard_since and now - heard_since > 1.5:
                    os.write(terminal, b" ")
                    key_at = time.monotonic()
            elif now - key_at > 1.0:
                break
    finally:
        os.write(terminal, b"q")
        os.waitpid(pid, 0)
        parec.kill()
        parec.wait()
    if key_at is None:
        sys.exit("key-delay.py: the tone was never heard on the monitor")
    # The last loud sample, and the wall time it was read at, less what followed it in its read.
    for when, count, samples in reversed(reads):
        for index in range(len(samples) - 1, -1, -1):
            if abs(samples[index]) > 1000:
                silent_at = when - (len(samples) - 1 - index) / RATE
                return (silent_at - key_at) * 1000
    sys.exit("key-delay.py: no tone on the monitor")


print(int(round(statistics.median(one() for _ in range(reps)))))
