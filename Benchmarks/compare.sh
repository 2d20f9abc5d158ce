#!/usr/bin/env bash
# Whole-process comparisons: voicememo against the tools a user would use instead, each pair measured in this
# one run on this machine, each figure the median of several repetitions. Prints one table:
#   figure | voicememo | anchor | ratio | goal | met?
# Usage: Benchmarks/compare.sh PATH/TO/voicememo   (a release build; `make bench` passes its own)
# Environment: BENCH_REPS (repetitions, default 5), BENCH_KEEP=1 keeps the scratch directory, BENCH_ONLY the
# sections to run (default all: opus conversion playback list store latency memory pulse), BENCH_BEFORE an earlier
# voicememo build whose pulse rows are measured in the same rounds (a before/after in one run).
# Exit status: 0 when every comparison ran (goals missed or met), 1 when one could not run.
set -euo pipefail

voicememo=$(realpath "${1:?usage: compare.sh PATH/TO/voicememo}")
benchmarks=$(cd "$(dirname "$0")" && pwd)
reps=${BENCH_REPS:-5}
rt_reps=$(( reps < 3 ? reps : 3 ))
sections="opus conversion playback list store latency memory pulse"
only=" ${BENCH_ONLY:-$sections} "
for section in $only; do
    [[ " $sections " == *" $section "* ]] || { echo "compare.sh: no section '$section' (sections: $sections)" >&2; exit 1; }
done
want() { [[ $only == *" $1 "* ]]; }
for tool in sox soxi opusenc opusinfo soundstretch espeak-ng arecord aplay pulseaudio pactl parec python3 script; do
    command -v "$tool" >/dev/null || { echo "compare.sh: $tool is missing; run make deps" >&2; exit 1; }
done

work=$(mktemp -d /tmp/voicememo-test-bench-XXXXXX)
pulse_pid=
parec_pid=
cleanup() {
    [ -n "$parec_pid" ] && kill "$parec_pid" 2>/dev/null && wait "$parec_pid" 2>/dev/null
    [ -n "$pulse_pid" ] && kill "$pulse_pid" 2>/dev/null && wait "$pulse_pid" 2>/dev/null
    if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "compare.sh: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The test devices of Tests/TestSupport/ALSATestDevices.swift, plus a microphone that never runs dry.
export ALSA_CONFIG_PATH=$work/alsa.conf
cat > "$ALSA_CONFIG_PATH" <<'EOF'
</usr/share/alsa/alsa.conf>
pcm.zeromic { type file slave.pcm null file "/dev/null" infile "/dev/zero" format raw }
EOF

rows=()
# row FIGURE VOICEMEMO ANCHOR RATIO GOAL MET
row() { rows+=("$(printf '%s|%s|%s|%s|%s|%s' "$@")"); printf '  %s: %s vs %s (%s, goal %s: %s)\n' "$@" >&2; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
calc() { python3 -c "print($1)"; }
fmt() { printf "%.${2:-2}f" "$1"; }
# met VALUE OP LIMIT → yes/no
met() { if python3 -c "import sys; sys.exit(0 if $1 $2 $3 else 1)"; then echo yes; else echo no; fi; }

# timed OUT CMD...: runs CMD once and appends "wall cpu maxrss_kb" to OUT (cpu = user + system seconds, to the
# microsecond: timed.py).
timed() {
    local out=$1; shift
    python3 "$benchmarks/timed.py" "$out" "$@" || {
        echo "compare.sh: failed: $* ($(tail -n 3 "$out.stderr" | tr '\n' ' '))" >&2; exit 1; }
}
# column FILE N → median of column N
column() { awk -v n="$2" '{ print $n }' "$1" | median; }

# runs "NAME|SETUP|COMMAND"...: $reps rounds, each running every COMMAND once after its SETUP (a shell snippet,
# unmeasured), in turn, so that what else loads the machine weighs on all of them alike; results in $work/NAME.
runs() {
    local spec name setup command
    for spec in "$@"; do rm -f "$work/${spec%%|*}"; done
    for _ in $(seq "$reps"); do
        for spec in "$@"; do
            IFS='|' read -r name setup command <<< "$spec"
            eval "$setup"
            eval "timed \"\$work/$name\" $command"
        done
    done
}

echo "compare.sh: making inputs in $work" >&2
audio_seconds=600
if want opus || want conversion || want playback; then
# 10 minutes of speech: espeak-ng, at 48 kHz mono 16-bit, looped.
espeak-ng -w "$work/phrase.wav" "Remember to call the dentist on Monday morning. The quarterly report is due on \
Friday, and the meeting with the design team moves to Thursday at three. Buy bread, milk and coffee on the way home."
sox "$work/phrase.wav" -r 48000 -b 16 "$work/phrase48.wav"
phrase_seconds=$(soxi -D "$work/phrase48.wav")
sox "$work/phrase48.wav" "$work/speech.wav" repeat "$(calc "int(600 / $phrase_seconds) + 1")" trim 0 600
# 10 minutes of stereo music-like material: two chords of tones, 48 kHz 16-bit.
sox -n -r 48000 -b 16 -c 2 "$work/music.wav" synth 600 sine 220 sine 277 vol 0.4 remix 1 2
fi
# One second of tone, for the list's store and the start latency.
sox -n -r 48000 -b 16 -c 1 "$work/short.wav" synth 1 sine 440 vol 0.5

# A store per run, fresh each time: what a first import does.
store() { rm -rf "$work/store"; export VOICEMEMO_HOME=$work/store; }

if want opus; then
# --- Opus encoding of 10 minutes of speech at 32 kb/s ----------------------------------------------------------
echo "compare.sh: Opus encoding" >&2
runs 'opus-vm|store|"$voicememo" import "$work/speech.wav" --format opus --bitrate 32000 --channels 1' \
     'opus-enc|:|opusenc --quiet --bitrate 32 "$work/speech.wav" "$work/anchor.opus"'
vm=$(column "$work/opus-vm" 1); anchor=$(column "$work/opus-enc" 1)
ratio=$(calc "$vm / $anchor")
row "Opus encode, 10 min speech, 32 kb/s (wall s)" "$(fmt "$vm") s" "$(fmt "$anchor") s (opusenc)" "$(fmt "$ratio")×" "≤ 1.1×" "$(met "$ratio" '<=' 1.1)"
fi

if want conversion; then
# --- WAV → WAV and WAV → CAF conversion --------------------------------------------------------------------------
# voicememo's file is synced to disk before it is renamed into place; sox's is followed by `sync FILE` so
# that both runs end with the data on disk.
echo "compare.sh: WAV and CAF conversion" >&2
for format in wav caf; do
    runs "conv-vm-$format|store|\"\$voicememo\" import \"\$work/music.wav\" --format $format" \
         "conv-sox-$format|:|sh -c \"sox '$work/music.wav' '$work/anchor.$format' && sync '$work/anchor.$format'\""
    vm=$(column "$work/conv-vm-$format" 1); anchor=$(column "$work/conv-sox-$format" 1)
    ratio=$(calc "$vm / $anchor")
    row "WAV → ${format^^}, 10 min stereo 16-bit (speed: audio s per wall s)" "$(fmt "$(calc "$audio_seconds / $vm")" 0)×" \
        "$(fmt "$(calc "$audio_seconds / $anchor")" 0)× (sox + sync)" "$(fmt "$ratio")× the time" "< 1×" "$(met "$ratio" '<' 1)"
done
fi

if want playback; then
# --- Playback pipeline at rate 1.5 -------------------------------------------------------------------------------
# voicememo: decode, time-stretch (SoundTouch), pan, volume, mix, to ALSA's null PCM, which takes frames as
# fast as they come. With a terminal (script(1) gives it one) it meters and draws the meter too.
echo "compare.sh: playback at rate 1.5" >&2
store
music_id=$("$voicememo" import "$work/music.wav" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
# The anchor is soundstretch with its own speech setting (-speech), as ours is tuned for speech: like with like.
# Ours seeks each join with SoundTouch's quick seek; soundstretch's -quick does too, in the row beside it.
runs 'play-vm|:|"$voicememo" play "$music_id" --device null --rate 1.5 --pan 0.3 --volume 0.8 --no-meter' \
     'play-vm-meter|:|script -qec "$voicememo play $music_id --device null --rate 1.5 --pan 0.3 --volume 0.8 </dev/null" /dev/null' \
     'play-ss|:|soundstretch "$work/music.wav" "$work/stretched.wav" -tempo=50 -speech' \
     'play-ss-quick|:|soundstretch "$work/music.wav" "$work/stretched.wav" -tempo=50 -speech -quick' \
     'play-sox|:|sox "$work/music.wav" -n tempo 1.5'
vm=$(column "$work/play-vm" 2); vm_meter=$(column "$work/play-vm-meter" 2)
ss=$(column "$work/play-ss" 2); ssq=$(column "$work/play-ss-quick" 2); sx=$(column "$work/play-sox" 2)
row "Play 10 min stereo at rate 1.5 to null (CPU s)" "$(fmt "$vm") s" "$(fmt "$ss") s (soundstretch -tempo=50 -speech)" \
    "$(fmt "$(calc "$vm / $ss")")×" "≤ 1.3×" "$(met "$vm / $ss" '<=' 1.3)"
row "… with the live meter, in a terminal (CPU s)" "$(fmt "$vm_meter") s" "$(fmt "$ss") s (soundstretch -tempo=50 -speech)" \
    "$(fmt "$(calc "$vm_meter / $ss")")×" "≤ 1.3×" "$(met "$vm_meter / $ss" '<=' 1.3)"
row "… against soundstretch's quick seek too (CPU s)" "$(fmt "$vm") s" "$(fmt "$ssq") s (soundstretch -tempo=50 -speech -quick)" \
    "$(fmt "$(calc "$vm / $ssq")")×" "-" "-"
row "… against sox tempo 1.5 (CPU s)" "$(fmt "$vm") s" "$(fmt "$sx") s (sox -n tempo 1.5)" \
    "$(fmt "$(calc "$vm / $sx")")×" "-" "-"
fi

if want list; then
# --- list with 10,000 memos ---------------------------------------------------------------------------------------
# The index as MemoStore writes it, and 10,000 audio files (hard links to one short WAV): make-store.py.
echo "compare.sh: list with 10,000 memos" >&2
store; python3 "$benchmarks/make-store.py" "$work/store" "$work/short.wav" 10000
count=$("$voicememo" list --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[ "$count" = 10000 ] || { echo "compare.sh: voicememo list showed $count memos, not 10000" >&2; exit 1; }
# What `list --json` is measured against: Python reading and writing the same index, as a tool would.
cat > "$work/dump.py" <<'EOF'
import json, sys
json.dump(json.load(open(sys.argv[1])), sys.stdout)
EOF
cat > "$work/list.py" <<'EOF'
# What `voicememo list` does, in Python: parse the index, newest first, one line per memo.
import json, sys
memos = json.load(open(sys.argv[1]))["memos"]
memos.sort(key=lambda memo: memo["createdAt"], reverse=True)
for memo in memos:
    print("%s  %-40.40s  %s  %7.1f  %s  %d" % (memo["id"], memo["title"], memo["createdAt"], memo["duration"],
                                                memo["format"], memo["sizeBytes"]))
EOF
# `list` reads the index's binary cache, made by the count above. Once the store has been still for two seconds,
# a `list` finds the index listing exactly its files and the cache vouches for the directory: a settled store,
# as it is whenever nothing has just been recorded or copied in, is listed without reading its directory.
sleep 2.1
"$voicememo" list > /dev/null
# A tenth of a second each: four times the rounds, for a steadier median.
reps_saved=$reps; reps=$((reps * 4))
runs 'list-vm|:|"$voicememo" list' 'list-json|:|"$voicememo" list --json' \
     'list-py|:|python3 "$work/list.py" "$work/store/memos.json"' 'list-pyjson|:|python3 "$work/dump.py" "$work/store/memos.json"'
# Just after a file came or went (here: one that is not a memo), the directory is read and compared again; the
# first `list` after the index changed (here: with the cache removed) reads the JSON and makes the cache again.
runs 'list-scan|rm -f "$work/store/notes.txt"; : > "$work/store/notes.txt"|"$voicememo" list' \
     'list-cold|rm -f "$work/store/.memos.cache"|"$voicememo" list'
reps=$reps_saved
# Cold: every file read from the disk, the kernel's page cache dropped before each run of either (root only).
cold_json=; cold_pyjson=
if [ -w /proc/sys/vm/drop_caches ]; then
    drop='sync; echo 3 > /proc/sys/vm/drop_caches'
    runs "list-json-cold|$drop|\"\$voicememo\" list --json" "list-pyjson-cold|$drop|python3 \"\$work/dump.py\" \"\$work/store/memos.json\""
    cold_json=$(column "$work/list-json-cold" 1); cold_pyjson=$(column "$work/list-pyjson-cold" 1)
fi
vm=$(column "$work/list-vm" 1); json=$(column "$work/list-json" 1); py=$(column "$work/list-py" 1); pyjson=$(column "$work/list-pyjson" 1)
scan=$(column "$work/list-scan" 1); cold=$(column "$work/list-cold" 1)
row "list, 10,000 memos, table (wall ms)" "$(fmt "$(calc "$vm * 1000")" 0) ms" "$(fmt "$(calc "$py * 1000")" 0) ms (python3 json)" \
    "$(fmt "$(calc "$vm / $py")")×" "< 1× and < 100 ms" "$(met "$vm < $py and $vm" '<' 0.1)"
row "list, 10,000 memos, just after a file came or went (wall ms)" "$(fmt "$(calc "$scan * 1000")" 0) ms" \
    "$(fmt "$(calc "$py * 1000")" 0) ms (python3 json)" "$(fmt "$(calc "$scan / $py")")×" "–" "–"
row "list, 10,000 memos, first after the index changed (wall ms)" "$(fmt "$(calc "$cold * 1000")" 0) ms" \
    "$(fmt "$(calc "$py * 1000")" 0) ms (python3 json)" "$(fmt "$(calc "$cold / $py")")×" "–" "–"
row "list --json, 10,000 memos, warm (wall ms)" "$(fmt "$(calc "$json * 1000")" 0) ms" \
    "$(fmt "$(calc "$pyjson * 1000")" 0) ms (python3 json.dump(json.load))" "$(fmt "$(calc "$json / $pyjson")")×" "≤ 1×" "$(met "$json" '<=' "$pyjson")"
if [ -n "$cold_json" ]; then
    row "list --json, 10,000 memos, cold page cache (wall ms)" "$(fmt "$(calc "$cold_json * 1000")" 0) ms" \
        "$(fmt "$(calc "$cold_pyjson * 1000")" 0) ms (python3 json.dump(json.load))" "$(fmt "$(calc "$cold_json / $cold_pyjson")")×" "≤ 1×" \
        "$(met "$cold_json" '<=' "$cold_pyjson")"
else
    row "list --json, 10,000 memos, cold page cache (wall ms)" "not measured" "(dropping the page cache needs root)" "–" "≤ 1×" "–"
fi
fi

if want store; then
# --- A one-memo change in stores of 100 and 50,000 memos -------------------------------------------------------
# Opus memos (hard links to one short file), so that a rename changes the index alone. The anchor is what any tool
# that keeps such an index in one JSON file pays for a change: Python reading it and writing it whole.
echo "compare.sh: a one-memo change in stores of 100 and 50,000 memos" >&2
opusenc --quiet "$work/short.wav" "$work/short.opus"
cat > "$work/rewrite.py" <<'EOF'
import json, sys
index = json.load(open(sys.argv[1]))
json.dump(index, open(sys.argv[1], "w"))
EOF
for count in 100 50000; do
    dir=$work/store-$count
    rm -rf "$dir"; python3 "$benchmarks/make-store.py" "$dir" "$work/short.opus" "$count"
    cp "$dir/memos.json" "$work/index-$count.json"
    export VOICEMEMO_HOME=$dir
    target=$("$voicememo" list --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[-1]["id"])')
    # The first change writes the index as this version keeps it (schema 3); the store then settles, and its
    # directory is vouched for and not read again.
    "$voicememo" rename "$target" "Settled" > /dev/null
    sleep 2.1
    "$voicememo" list > /dev/null
    printf 'n=$(cat "%s"); echo $((n + 1)) > "%s"; exec "%s" rename %s "Title $n"\n' \
        "$work/counter" "$work/counter" "$voicememo" "$target" > "$work/rename.sh"
    echo 0 > "$work/counter"
    runs "change-vm-$count|:|sh \"\$work/rename.sh\"" "change-py-$count|:|python3 \"\$work/rewrite.py\" \"\$work/index-$count.json\""
done
small=$(column "$work/change-vm-100" 1); large=$(column "$work/change-vm-50000" 1)
py_small=$(column "$work/change-py-100" 1); py_large=$(column "$work/change-py-50000" 1)
row "one-memo change (rename), 100 memos (wall ms)" "$(fmt "$(calc "$small * 1000")" 0) ms" \
    "$(fmt "$(calc "$py_small * 1000")" 0) ms (python3 load + dump)" "$(fmt "$(calc "$small / $py_small")")×" "–" "–"
row "one-memo change (rename), 50,000 memos (wall ms)" "$(fmt "$(calc "$large * 1000")" 0) ms" \
    "$(fmt "$(calc "$py_large * 1000")" 0) ms (python3 load + dump)" "$(fmt "$(calc "$large / $py_large")")×" "≤ 100 ms" "$(met "$large" '<=' 0.1)"
# The change that folds the journal into memos.json, one in 6,250 at this size, and what it costs when it comes:
# made to come with a memos.json whose generation no journal has (as a backup put back would be).
cat > "$work/regenerate.py" <<'EOF'
import json, random, sys
index = json.load(open(sys.argv[1]))
index["generation"] = "%x" % random.getrandbits(63)
json.dump(index, open(sys.argv[1], "w"))
EOF
runs "fold-vm|python3 \"\$work/regenerate.py\" \"\$work/store-50000/memos.json\"|sh \"\$work/rename.sh\""
fold=$(column "$work/fold-vm" 1)
row "one-memo change that folds the journal, 50,000 memos (1 in 6,250; wall ms)" "$(fmt "$(calc "$fold * 1000")" 0) ms" \
    "$(fmt "$(calc "$py_large * 1000")" 0) ms (python3 load + dump)" "$(fmt "$(calc "$fold / $py_large")")×" "–" "–"
export VOICEMEMO_HOME=$work/store
fi

if want latency; then
# --- Start latency: process start to the first frame handed to ALSA --------------------------------------------
# The device is ALSA's file PCM writing into a FIFO: the time from spawning the process to the first bytes
# arriving through the FIFO. aplay of the same file is the anchor.
echo "compare.sh: start latency" >&2
store; short_id=$("$voicememo" import "$work/short.wav" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
cat > "$work/latency.py" <<'EOF'
# latency.py FIFO REPS CMD... (the string @FIFO@ in CMD becomes FIFO): median milliseconds from spawn to first byte.
import os, statistics, subprocess, sys, time
fifo, reps, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
command = [part.replace("@FIFO@", fifo) for part in command]
samples = []
for _ in range(reps):
    if os.path.exists(fifo): os.unlink(fifo)
    os.mkfifo(fifo)
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(fifo, "rb", buffering=0) as pipe:
        first = pipe.read(1)
        samples.append((time.monotonic() - start) * 1000)
        while pipe.read(65536): pass
    if process.wait() != 0 or not first:
        sys.exit("latency.py: %s failed: %s" % (" ".join(command), process.stderr.read().decode()))
print("%.1f" % statistics.median(samples))
EOF
vm=$(python3 "$work/latency.py" "$work/out.fifo" "$reps" "$voicememo" play "$short_id" --device "file:FILE=@FIFO@,FORMAT=raw" --no-meter)
anchor=$(python3 "$work/latency.py" "$work/out.fifo" "$reps" aplay -q -D "file:FILE=@FIFO@,FORMAT=raw" "$work/short.wav")
row "voicememo play: process start → first frame (ms)" "$vm ms" "$anchor ms (aplay)" "$(fmt "$(calc "$vm / $anchor")")×" "< 50 ms" "$(met "$vm" '<' 50)"
fi

if want memory; then
# --- Memory over a one-hour recording --------------------------------------------------------------------------
# An hour of mono 16-bit WAV from a microphone that reads /dev/zero: the unclocked PCM lets it run faster than
# real time. VmRSS and RssAnon (the part that is not mapped files:
# heap, stacks) are sampled every 10 ms.
echo "compare.sh: RSS over a one-hour recording" >&2
store
python3 - "$work/rss.txt" "$voicememo" record --device zeromic --duration 3600 --no-meter <<'EOF'
import subprocess, sys, time
out, command = sys.argv[1], sys.argv[2:]
process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
start, samples = time.monotonic(), []
while process.poll() is None:
    try:
        for line in open("/proc/%d/status" % process.pid):
            if line.startswith("VmRSS:"): rss = int(line.split()[1])
            if line.startswith("RssAnon:"): samples.append((time.monotonic() - start, rss, int(line.split()[1])))
    except (FileNotFoundError, ProcessLookupError):
        break
    time.sleep(0.01)
if process.wait() != 0: sys.exit("record failed: " + process.stderr.read().decode())
with open(out, "w") as file:
    for t, kb, anon in samples: file.write("%.3f %d %d\n" % (t, kb, anon))
EOF
recorded=$(soxi -D "$work"/store/*.wav)
# Growth: the largest RSS of the run's second half less that of its first half.
read -r seconds first_half second_half peak peak_anon < <(awk '{ t[NR] = $1; r[NR] = $2; if ($3 > an) an = $3 } END {
    h = int(NR / 2); for (i = 1; i <= NR; i++) { if (i <= h && r[i] > a) a = r[i]; if (i > h && r[i] > b) b = r[i]; if (r[i] > m) m = r[i] }
    print t[NR], a, b, m, an }' "$work/rss.txt")
growth=$(calc "($second_half - $first_half) / 1024")
row "record 1 h (${recorded%.*} s) in $(fmt "$seconds" 1) s: peak RSS (MB)" \
    "$(fmt "$(calc "$peak / 1024")" 1) MB (anonymous $(fmt "$(calc "$peak_anon / 1024")" 1))" \
    "2nd half − 1st half: $(fmt "$growth" 1) MB" "-" "< 30 MB, no growth" "$(met "$peak < 30 * 1024 and $growth" '<=' 0.5)"
fi

if want pulse; then
# --- Real-time CPU on a PulseAudio sink ----------------------------------------------------------------------------
# A private server (as Tests/TestSupport/PulseAudioServer.swift starts it) with a 48 kHz null sink. CPU = user +
# system of the process. Steady state: the CPU of a 22 s run less that of a 2 s run, over 20 s, so that start-up
# (loading libraries, opening the store) is not counted. The live meter is drawn on a terminal (script(1)); without
# it, --no-meter. Key to sound: Benchmarks/key-delay.py types keys into `play` on a terminal (space to pause and
# resume, → to seek, + for ×1.25) and times, on the sink's monitor, when they are heard (server in 10 ms ticks).
#
# The server runs in one of two modes, and the CPU of every client depends on which: each is measured with
# arecord and aplay in the same rounds.
# - ordinary (the headline): another client keeps the sink running, reading its monitor in 500 ms fragments
#   (parec --latency-msec=500), as an idle desktop's clients do; the null sink works in long blocks and each stream
#   moves in the fragments it asked for.
# - low latency: a client reading the monitor in 10 ms fragments (parec --latency-msec=10), as a call or a
#   music program would, puts the whole server in 10 ms ticks: every client wakes 100 times a second, and arecord's
#   own CPU is several times what it is in the ordinary mode.
echo "compare.sh: real-time CPU on PulseAudio" >&2
mkdir -m 700 "$work/pulse"
pulse_env=(env XDG_RUNTIME_DIR="$work/pulse" HOME="$work/pulse" PULSE_SERVER="unix:$work/pulse/native")
env XDG_RUNTIME_DIR="$work/pulse" HOME="$work/pulse" pulseaudio -n --daemonize=no --system=false --exit-idle-time=-1 \
    --disallow-exit --use-pid-file=no --disable-shm=yes --realtime=yes --high-priority=yes --no-cpu-limit=yes \
    --log-target=stderr --log-level=error --load="module-native-protocol-unix auth-anonymous=1 socket=$work/pulse/native" \
    --load="module-null-sink sink_name=spk rate=48000" </dev/null >/dev/null 2>"$work/pulse.log" &
pulse_pid=$!
for _ in $(seq 500); do "${pulse_env[@]}" pactl info >/dev/null 2>&1 && break; sleep 0.02; done
"${pulse_env[@]}" pactl info >/dev/null || { echo "compare.sh: pulseaudio did not start: $(cat "$work/pulse.log")" >&2; exit 1; }
# keep_alive MSEC: the one other client, reading the monitor in MSEC ms fragments, in place of the previous one; the
# sink suspended and resumed so that it starts over in the new client's blocks.
keep_alive() {
    if [ -n "$parec_pid" ]; then kill "$parec_pid"; wait "$parec_pid" 2>/dev/null || true; fi
    "${pulse_env[@]}" parec --latency-msec="$1" --raw >/dev/null 2>&1 &
    parec_pid=$!
    sleep 0.5
    "${pulse_env[@]}" pactl suspend-sink spk 1; "${pulse_env[@]}" pactl suspend-sink spk 0
    sleep 0.5
}
store
for seconds in 2 22; do
    sox -n -r 48000 -b 16 -c 2 "$work/tone$seconds.wav" synth "$seconds" sine 440 vol 0.5
    printf -v "tone$seconds" '%s' "$("$voicememo" import "$work/tone$seconds.wav" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')"
done
reps_saved=$reps; reps=$rt_reps
# BENCH_BEFORE=PATH/TO/voicememo runs an earlier build beside this one, in the same rounds: a before/after in one run.
builds=("$voicememo")
[ -n "${BENCH_BEFORE:-}" ] && builds+=("$(realpath "$BENCH_BEFORE")")
# The low-latency mode last: the key delays below are measured in it, as key-delay.py reads the monitor in 5 ms steps,
# which a sink in 500 ms blocks takes up only at the end of its block (there the + row read 44 to 119 ms before the key).
# It measures --no-meter only: what the meter adds does not depend on the server's ticks.
for mode in ordinary low; do
    if [ "$mode" = low ]; then keep_alive 10; else keep_alive 500; fi
    specs=()
    for seconds in 2 22; do
        tone_var="tone$seconds"; tone=${!tone_var}
        specs+=("rec-ar-$mode-$seconds|:|\"\${pulse_env[@]}\" arecord -q -D pulse -f S16_LE -r 48000 -c 1 -d $seconds $work/arecord.wav"
                "play-ap-$mode-$seconds|:|\"\${pulse_env[@]}\" aplay -q -D pulse $work/tone$seconds.wav")
        for build in "${!builds[@]}"; do
            binary=${builds[$build]}
            specs+=("rec-vm$build-$mode-$seconds|:|\"\${pulse_env[@]}\" $binary record --device pulse --duration $seconds --no-meter"
                    "play-vm$build-$mode-$seconds|:|\"\${pulse_env[@]}\" $binary play $tone --device pulse --no-meter")
            if [ "$mode" = ordinary ]; then
                specs+=("rec-tty$build-$mode-$seconds|:|\"\${pulse_env[@]}\" script -qec \"$binary record --device pulse --duration $seconds </dev/null\" /dev/null"
                        "play-tty$build-$mode-$seconds|:|\"\${pulse_env[@]}\" script -qec \"$binary play $tone --device pulse </dev/null\" /dev/null")
            fi
        done
    done
    runs "${specs[@]}"
done
reps=$reps_saved
# Where record's CPU goes, thread by thread, in the ordinary mode: each build's and arecord's threads over seconds 3–15 of
# a 16 s recording (Benchmarks/threads.py: the kernel's run time of each thread).
keep_alive 500
splits=()
for build in "${!builds[@]}"; do
    splits+=("$("${pulse_env[@]}" python3 "$benchmarks/threads.py" 16 "${builds[$build]}" record --device pulse --duration 16 --no-meter)")
done
arecord_split=$("${pulse_env[@]}" python3 "$benchmarks/threads.py" 16 arecord -q -D pulse -f S16_LE -r 48000 -c 1 -d 16 "$work/arecord.wav")
# Back to 10 ms ticks for the key delays below.
keep_alive 10
# thread JSON NAME → that thread's ms per second, to a hundredth ("-" when it has none)
thread() { python3 -c "import json, sys; value = json.loads(sys.argv[1]).get(sys.argv[2]); print('-' if value is None else '%.2f' % value)" "$1" "$2"; }
# steady NAME → CPU ms per second of audio in the steady state
steady() { calc "($(column "$work/$1-22" 2) - $(column "$work/$1-2" 2)) * 1000 / 20"; }
ordinary=" (server in its ordinary mode)"; low=" (server in 10 ms ticks)"
# First that the key measurement sees a delay where there is one (it exits non-zero when it does not).
"${pulse_env[@]}" python3 "$benchmarks/key-delay.py" --check "$voicememo" >&2
for build in "${!builds[@]}"; do
    binary=${builds[$build]}
    of=; [ "$build" = 0 ] || of=" (before: $binary)"
    for mode in ordinary low; do
        arec=$(steady "rec-ar-$mode"); aplay=$(steady "play-ap-$mode")
        rec=$(steady "rec-vm$build-$mode"); play=$(steady "play-vm$build-$mode")
        row "record --no-meter on PulseAudio, steady state (CPU ms per s of audio)${!mode}$of" "$(fmt "$rec" 1) ms" \
            "$(fmt "$arec" 1) ms (arecord)" "$(fmt "$(calc "$rec / max($arec, 0.001)")")×" "≤ 2×" "$(met "$rec" '<=' "2 * $arec")"
        row "play --no-meter on PulseAudio, steady state (CPU ms per s of audio)${!mode}$of" "$(fmt "$play" 1) ms" \
            "$(fmt "$aplay" 1) ms (aplay)" "$(fmt "$(calc "$play / max($aplay, 0.001)")")×" "≤ 2×" "$(met "$play" '<=' "2 * $aplay")"
    done
    split=${splits[$build]}
    row "record --no-meter by thread: writer, capture, sound server's client (CPU ms per s of audio)$ordinary$of" \
        "$(thread "$split" audio-writer), $(thread "$split" audio-in), $(thread "$split" threaded-ml) ms (all $(thread "$split" total))" \
        "$(thread "$arecord_split" arecord), $(thread "$arecord_split" threaded-ml) ms (arecord: main, client; all $(thread "$arecord_split" total))" "-" "-" "-"
    rec=$(steady "rec-vm$build-ordinary"); play=$(steady "play-vm$build-ordinary")
    rec_tty=$(steady "rec-tty$build-ordinary"); play_tty=$(steady "play-tty$build-ordinary")
    row "record with the meter drawn, steady state (CPU ms per s of audio)$ordinary$of" "$(fmt "$rec_tty" 1) ms" "$(fmt "$rec" 1) ms (--no-meter)" \
        "+$(fmt "$(calc "$rec_tty - $rec")" 1) ms" "≤ +5 ms" "$(met "$rec_tty - $rec" '<=' 5)"
    row "play with the meter drawn, steady state (CPU ms per s of audio)$ordinary$of" "$(fmt "$play_tty" 1) ms" "$(fmt "$play" 1) ms (--no-meter)" \
        "+$(fmt "$(calc "$play_tty - $play")" 1) ms" "≤ +5 ms" "$(met "$play_tty - $play" '<=' 5)"
    delays=$("${pulse_env[@]}" python3 "$benchmarks/key-delay.py" "$rt_reps" "$binary")
    echo "compare.sh: key delays$of: $delays" >&2
    for key in pause resume seek rate; do
        delay=$(python3 -c "import json, sys; value = json.loads(sys.argv[1])['$key']; print('none' if value is None else value)" "$delays")
        case $key in
            pause) what="space typed → silence";; resume) what="space again → sound";;
            seek) what="→ typed → the tone 5 s on (silence)";; rate) what="+ typed → ×1.25 heard (±25 ms)";;
        esac
        if [ "$delay" = none ]; then
            row "play --no-meter: $what on the sink's monitor (ms)$of" "not heard within 1 s" "-" "-" "≤ 100 ms" "no"
        else
            row "play --no-meter: $what on the sink's monitor (ms)$of" "$delay ms" "-" "-" "≤ 100 ms" "$(met "$delay" '<=' 100)"
        fi
    done
done
fi

# --- The table ----------------------------------------------------------------------------------------------------
echo
echo "Medians of $reps runs (real-time ones: $rt_reps), $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| figure | voicememo | anchor | ratio | goal | met |"
echo "|---|---|---|---|---|---|"
for line in "${rows[@]}"; do echo "| ${line//|/ | } |"; done
