#!/usr/bin/env bash
# `make demo`: voicememo end to end — record a memo, list it, play it, export it — in a store of its own,
# demo/store, so that none of your memos is touched. With a sound card it records your voice from ALSA's
# `default` device; without one (a server, a container, CI) it makes a virtual one: a private PulseAudio
# server whose null sink is the speaker and whose monitor is the microphone, and espeak-ng speaks into it.
# Usage: Scripts/demo.sh PATH_TO_VOICEMEMO
set -euo pipefail

binary=${1:?usage: Scripts/demo.sh PATH_TO_VOICEMEMO}
export PATH="$(cd "$(dirname "$binary")" && pwd):$PATH"
rm -rf demo
mkdir -p demo
export VOICEMEMO_HOME="$PWD/demo/store"
title="Dentist"

say() { printf '\n\033[36m# %s\033[0m\n' "$*"; }
step() { printf '\033[1m$ %s\033[0m\n' "$*"; "$@"; }

pulse_pid=
speaker_pid=
runtime=
cleanup() {
    [ -z "$speaker_pid" ] || kill "$speaker_pid" 2>/dev/null || true
    if [ -n "$pulse_pid" ]; then
        kill "$pulse_pid" 2>/dev/null || true
        wait "$pulse_pid" 2>/dev/null || true
    fi
    [ -z "$runtime" ] || rm -rf "$runtime"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "The store for this demo is $VOICEMEMO_HOME (VOICEMEMO_HOME); delete demo/ when done (make clean does)."
if grep -q '^ *[0-9]' /proc/asound/cards 2>/dev/null; then
    device=default
    say "A sound card: recording from and playing on ALSA's default device. Say something for 5 seconds now."
else
    device=pulse
    say "No sound card here: a virtual one stands in. A private PulseAudio server with a null sink is the speaker,
# its monitor the microphone (ALSA device 'pulse'), and espeak-ng speaks the memo into it. Nothing is heard."
    runtime=$(mktemp -d /tmp/voicememo-demo-XXXXXX)
    export XDG_RUNTIME_DIR="$runtime" PULSE_SERVER="unix:$runtime/native"
    HOME="$runtime" pulseaudio -n --daemonize=no --system=false --exit-idle-time=-1 --disallow-exit \
        --use-pid-file=no --disable-shm=yes --log-target=stderr --log-level=error \
        --load="module-native-protocol-unix auth-anonymous=1 socket=$runtime/native" \
        --load="module-null-sink sink_name=speaker rate=48000" &
    pulse_pid=$!
    for _ in $(seq 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
    pactl info >/dev/null
    espeak-ng -w demo/speech.wav "Remember to call the dentist on Monday morning, and to buy bread."
    # The speech starts a moment after the recording does.
    (sleep 1 && paplay demo/speech.wav) &
    speaker_pid=$!
fi

say "Record a memo: a live meter while it records (on a terminal), 5 seconds."
step voicememo record --title "$title" --duration 5 --device "$device"
[ -z "$speaker_pid" ] || { wait "$speaker_pid"; speaker_pid=; }

say "List the memos, and everything about this one: its levels were measured while recording."
step voicememo list
step voicememo info "$title"

say "Play it back: position and output level, keys on a terminal (space pauses, ←/→ seek, q quits)."
step voicememo play "$title" --device "$device"

say "Export it as WAV, and check the file with another tool (sox)."
step voicememo export "$title" demo/dentist.wav
step soxi demo/dentist.wav

say "Done. The memo is in $VOICEMEMO_HOME."
