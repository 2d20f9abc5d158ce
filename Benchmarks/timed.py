#!/usr/bin/env python3
"""timed.py OUT COMMAND...: runs COMMAND (stdout to /dev/null, stderr to OUT.stderr) and appends to OUT one line,
"wall cpu maxrss_kb": wall seconds, the CPU seconds (user + system) of the process and of every descendant it waited
for, and its peak resident set in kB. Exits with COMMAND's status.

What /usr/bin/time reports, with the CPU to the microsecond instead of to the hundredth: the kernel counts a
process's CPU time exactly and wait4 hands it over whole, while time(1) prints it in 10 ms steps, too coarse for a
command that takes 30 ms of CPU in 20 s (aplay on a sound server).
"""
import os, subprocess, sys, time

out, command = sys.argv[1], sys.argv[2:]
with open(out + ".stderr", "wb") as errors:
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
with open(out, "a") as file:
    file.write("%.6f %.6f %d\n" % (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
