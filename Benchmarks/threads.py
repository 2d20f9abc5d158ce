#!/usr/bin/env python3
"""threads.py SECONDS COMMAND...: runs COMMAND (SECONDS long; stdout and stderr to /dev/null) and prints one JSON object,
each thread's CPU in ms per second of wall time over its steady state (from 3 s in to 1 s before the end), by the
thread's name, with "total" for the process: what /proc/PID/task/*/schedstat counts (the kernel's run time of each
thread, to the nanosecond). Threads of one name are added up; a thread that came or went in between is not counted.
"""
import json, os, subprocess, sys, time

seconds, command = float(sys.argv[1]), sys.argv[2:]
process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def snapshot():
    threads = {}
    for task in os.listdir("/proc/%d/task" % process.pid):
        try:
            with open("/proc/%d/task/%s/comm" % (process.pid, task)) as comm, \
                 open("/proc/%d/task/%s/schedstat" % (process.pid, task)) as schedstat:
                threads[task] = (comm.read().strip(), int(schedstat.read().split()[0]))
        except FileNotFoundError:
            pass
    return threads


time.sleep(3)
before, start = snapshot(), time.monotonic()
time.sleep(seconds - 4)
after, wall = snapshot(), time.monotonic() - start
if process.wait() != 0:
    sys.exit("threads.py: %s failed" % " ".join(command))
cpu = {}
for task, (name, nanoseconds) in after.items():
    if task in before:
        cpu[name] = cpu.get(name, 0) + (nanoseconds - before[task][1]) / 1e6 / wall
cpu["total"] = sum(cpu.values())
print(json.dumps({name: round(value, 3) for name, value in cpu.items()}))
