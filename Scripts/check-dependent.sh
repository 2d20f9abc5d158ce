#!/usr/bin/env bash
# A package that depends on this one by version, as a Swift developer adds it (`.package(url:from:)`), builds and
# plays a file: Scripts/DependentPackage, against a clone of this repository's HEAD tagged with the version of
# Sources/AudioIO/Version.swift. SwiftPM refuses unsafeFlags in such a dependency, which building it as the root
# package never shows. Uses a scratch directory of its own; the clone's packages come as the root build's do.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^public let audioIOVersion = "\(.*\)"$/\1/p' "$root/Sources/AudioIO/Version.swift")"
[ -n "$version" ] || { echo "check-dependent: no version in Sources/AudioIO/Version.swift"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A clone may lack tags, and a tag of this version may name an earlier commit: tag what is checked here.
git clone -q --no-local "$root" "$work/voicememo"
git -C "$work/voicememo" tag -f "$version" HEAD >/dev/null
cp -R "$root/Scripts/DependentPackage" "$work/dependent"

echo "check-dependent: building a package that depends on voicememo from: \"$version\""
VOICEMEMO_URL="file://$work/voicememo" VOICEMEMO_VERSION="$version" \
  swift build --package-path "$work/dependent" --scratch-path "$work/build" 2>&1 | tee "$work/build.log" | grep -v '^\[' || true
grep -q 'Build complete' "$work/build.log" || { echo "check-dependent: the dependent package does not build"; exit 1; }
resolved="$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["pins"]; print(next(x["state"].get("version") for x in p if x["identity"]=="voicememo"))' "$work/dependent/Package.resolved")"
[ "$resolved" = "$version" ] || { echo "check-dependent: resolved voicememo $resolved, not $version"; exit 1; }

# Three seconds of a 440 Hz tone, played to the end into ALSA's file PCM, which writes what it is given.
sox -n -r 48000 -c 2 -b 16 "$work/tone.wav" synth 3 sine 440 gain -6
output="$(VOICEMEMO_URL= "$work/build/debug/PlayAFile" "$work/tone.wav" "file:'$work/played.raw',raw")"
echo "check-dependent: $output"
case "$output" in *"played 3.0 s, successfully: true"*) ;; *) echo "check-dependent: the file did not play to its end"; exit 1;; esac
bytes="$(stat -c %s "$work/played.raw")"
# 3 s of stereo at 48 kHz, in whatever sample format the device was opened in (16 or 32 bits).
case "$bytes" in 576000|1152000) ;; *) echo "check-dependent: the device was given $bytes bytes, not 3 s of audio"; exit 1;; esac
echo "check-dependent: voicememo $version as a versioned dependency builds and played 3 s ($bytes bytes)"
