#!/usr/bin/env bash
# `make check-deb`: the .deb of `make deb` installed with apt-get into a clean Debian 12 root, where no Swift toolchain
# can stand in for what the package lacks, and used there as a user would: first with its Recommends (FFmpeg,
# libcurl), then without them, where all but M4A and addresses must still work and those two must say what to
# install. Then it is removed, and must leave no file behind. Ends at the first check that fails, with one line
# naming it; prints the time of each phase and the .deb's size.
#
# The root is made by mmdebstrap from deb.debian.org once for each list of what goes into it, and kept in
# /var/cache/voicememo-check; each run works on copy-on-write copies of it (overlayfs), so that the cache stays as
# mmdebstrap made it. The packages apt-get downloads into the roots are kept there too.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || exec sudo "$(realpath "$0")" "$@"   # chroot and mount
cd "$(dirname "$0")/.."

version=$(sed -n 's/^public let audioIOVersion = "\(.*\)"$/\1/p' Sources/AudioIO/Version.swift)
deb=$PWD/.build/deb/voicememo_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { echo "check-deb: no $deb: make deb first" >&2; exit 1; }
# The packages it recommends, which name FFmpeg's (libavformatNN) and libcurl's.
recommends=$(dpkg-deb -f "$deb" Recommends | sed 's/ *([^)]*)//g; s/, */ /g')

fail() { printf 'check-deb: FAILED: %s\n' "$1" >&2; [ -z "${2-}" ] || printf '%s\n' "$2" | sed 's/^/  /' >&2; exit 1; }
seconds() { awk -v from="$1" -v to="$2" 'BEGIN { printf "%.1f", to - from }'; }
phase_start=$EPOCHREALTIME
phase() { printf 'check-deb: %-48s %6s s\n' "$1" "$(seconds "$phase_start" "$EPOCHREALTIME")"; phase_start=$EPOCHREALTIME; }

# The base root: what a minimal Debian 12 has (apt), with man-db and bash-completion, which the checks use, and a user.
mirror=http://deb.debian.org
sources=("deb $mirror/debian bookworm main" "deb $mirror/debian bookworm-updates main"
         "deb $mirror/debian-security bookworm-security main")
options=(--variant=apt --include=passwd,man-db,bash-completion --skip=cleanup/apt/lists
         --customize-hook='chroot "$1" useradd --create-home --shell /bin/bash memo')
cache=/var/cache/voicememo-check
base=$cache/bookworm-$(printf '%s\n' "${options[@]}" "${sources[@]}" | sha256sum | cut -c1-16)
if [ -d "$base" ]; then
  phase "root from cache"
else
  rm -rf "$base.new"; mkdir -p "$cache"
  mmdebstrap --quiet "${options[@]}" bookworm "$base.new" "${sources[@]}"
  mv "$base.new" "$base"
  phase "root made by mmdebstrap"
fi

work=$(mktemp -d /var/tmp/voicememo-check.XXXXXX)
mounts=()
cleanup() {
  local status=$? index
  for ((index = ${#mounts[@]} - 1; index >= 0; index--)); do
    umount "${mounts[index]}" || umount --lazy "${mounts[index]}" || status=1
  done
  # Never rm -rf across a mount that stayed: it would be the host's files.
  if findmnt -rn -o TARGET | grep -q "^$work/"; then echo "check-deb: $work is still mounted on" >&2; exit 1; fi
  rm -rf --one-file-system "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# A fresh copy of the base, $work/NAME, with /proc, the kept downloads, the host's DNS and the .deb in /tmp.
copy_root() {
  local root=$work/$1
  mkdir -p "$root" "$root.upper" "$root.work" "$cache/archives/partial"
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$root.upper,workdir=$root.work" "$root"; mounts+=("$root")
  mount -t proc proc "$root/proc"; mounts+=("$root/proc")
  mount --bind "$cache/archives" "$root/var/cache/apt/archives"; mounts+=("$root/var/cache/apt/archives")
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp "$deb" "$root/tmp/"
}
as_root() { chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "${@:2}"; }
# As the user memo, in a login's environment; its memo store is ~/.local/share/voicememo.
as_user() {
  chroot --userspec="$(awk -F: '$1 == "memo" { print $3 ":" $4 }' "$1/etc/passwd")" "$1" /usr/bin/env -i \
    HOME=/home/memo USER=memo LOGNAME=memo SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb "${@:2}"
}
install_deb() {  # ROOT [APT-OPTION...]: the .deb as a user installs a downloaded one; its log in ROOT.log
  { as_root "$1" apt-get update -qq && as_root "$1" apt-get install -y -q "${@:2}" "/tmp/${deb##*/}"; } >"$1.log" 2>&1 ||
    fail "apt-get install ./${deb##*/} ${*:2}" "$(tail -n 5 "$1.log")"
}
downloaded() { sed -n 's/^Need to get \([^/]*\)\/.*/\1 downloaded/p' "$1.log"; }   # ROOT: as apt-get said
# Every path in the root but apt's and dpkg's state, caches, logs, /tmp and the user's home (the memo store).
files() {
  (cd "$1" && find . -xdev | grep -vE '^\./(proc|run|tmp|home/memo|var/(lib/(apt|dpkg)|cache|log))(/|$)' | sort)
}
magic() { dd if="$1" bs=1 skip="$2" count="$3" status=none 2>/dev/null; }   # FILE OFFSET COUNT: those bytes

# What works with and without the Recommends: the version, the static runtime, recording, listing, Opus export.
check_common() {
  local root=$1 out
  out=$(as_user "$root" voicememo --version) || fail "voicememo --version exits 0"
  [[ $out == "voicememo $version "* ]] || fail "voicememo --version prints $version" "$out"
  out=$(as_user "$root" ldd /usr/bin/voicememo) || fail "ldd /usr/bin/voicememo"
  ! grep -E 'not found|libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime' <<<"$out" ||
    fail "ldd /usr/bin/voicememo: no library missing, the Swift runtime linked in" "$out"
  out=$(as_user "$root" voicememo presets) && grep -qE '^voice +opus ' <<<"$out" ||
    fail "voicememo presets lists voice from /usr/share/voicememo-presets" "$out"
  for format in wav opus; do
    out=$(as_user "$root" voicememo record --device null --title "$format" --duration 1 --format "$format" 2>&1) ||
      fail "voicememo record --device null --format $format exits 0" "$out"
  done
  out=$(as_user "$root" voicememo list) || fail "voicememo list exits 0"
  for format in wav opus; do
    grep -qE "^[0-9a-f]+ +$format +.* 0:01\.0 +$format " <<<"$out" || fail "voicememo list shows $format, 0:01.0 long" "$out"
  done
  out=$(as_user "$root" voicememo export wav /home/memo/out.opus 2>&1) || fail "voicememo export to Opus exits 0" "$out"
  [ "$(magic "$root/home/memo/out.opus" 0 4)$(magic "$root/home/memo/out.opus" 28 8)" = OggSOpusHead ] ||
    fail "voicememo export to Opus writes an Ogg Opus file"
}

copy_root full
before=$(files "$work/full")
install_deb "$work/full"
phase "install with Recommends ($(downloaded "$work/full"))"

check_common "$work/full"
out=$(as_user "$work/full" voicememo export wav /home/memo/out.m4a 2>&1) || fail "voicememo export to M4A exits 0" "$out"
[ "$(magic "$work/full/home/memo/out.m4a" 4 4)" = ftyp ] || fail "voicememo export to M4A writes an MP4 file"
out=$(as_user "$work/full" man voicememo 2>&1) && grep -q '^NAME' <<<"$out" && ! grep -qi warning <<<"$out" ||
  fail "man voicememo renders the manual, without a warning" "$(head -n 5 <<<"$out")"
# Tab after `voicememo rec`, as bash-completion does it: the script is loaded on demand from where the package put it.
out=$(as_user "$work/full" bash -c 'source /usr/share/bash-completion/bash_completion && __load_completion voicememo &&
  COMP_LINE="voicememo rec" COMP_POINT=13 COMP_WORDS=(voicememo rec) COMP_CWORD=1 &&
  $(complete -p voicememo | sed -n "s/.* -F \([^ ]*\) .*/\1/p") voicememo rec voicememo && echo "${COMPREPLY[@]}"' 2>&1) ||
  fail "bash completion of voicememo loads" "$out"
[ "$out" = record ] || fail "bash completion offers record for 'voicememo rec'" "$out"
phase "checks with Recommends"

as_root "$work/full" apt-get remove -y -q voicememo >>"$work/full.log" 2>&1 ||
  fail "apt-get remove voicememo" "$(tail -n 5 "$work/full.log")"
for path in $(dpkg-deb -c "$deb" | awk '!/^d/ { sub(/^\./, "", $6); print $6 }'); do
  [ ! -e "$work/full$path" ] || fail "apt-get remove voicememo leaves $path"
done
ls "$work/full/home/memo/.local/share/voicememo/"*.wav >/dev/null 2>&1 || fail "the memo store stays after apt-get remove"
# Purged (apt no longer knows it: dpkg does), and what it brought removed too, the root is file for file what it was.
# What it brought includes ca-certificates (libcurl4's Recommends), which autoremove keeps because apt recommends it.
{ as_root "$work/full" dpkg --purge voicememo &&
  as_root "$work/full" apt-get autoremove --purge -y -q -o APT::AutoRemove::RecommendsImportant=false; } >>"$work/full.log" 2>&1 ||
  fail "dpkg --purge voicememo; apt-get autoremove --purge" "$(tail -n 5 "$work/full.log")"
left=$(diff <(echo "$before") <(files "$work/full")) || fail "purged, voicememo leaves the root as it was" "$left"
phase "remove, purge, compare"

copy_root bare
install_deb "$work/bare" --no-install-recommends
phase "install without Recommends ($(downloaded "$work/bare"))"

for package in $recommends; do
  [ "$(as_root "$work/bare" dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" != installed ] ||
    fail "--no-install-recommends keeps $package out"
done
check_common "$work/bare"
# Without FFmpeg or libcurl: exit 1, one line naming what is missing and the package it recommends for it.
missing() {  # LIBRARY PACKAGE COMMAND...
  local status=0 err
  err=$(as_user "$work/bare" "${@:3}" 2>&1 >/dev/null) || status=$?
  [ "$status" -eq 1 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == *"$1"*"apt install"*"$2"* ]] ||
    fail "without $1, '${*:3}' exits 1 with one line saying to install $2 (it exited $status)" "$err"
  echo "check-deb: without $1: $err"
}
missing FFmpeg "$(grep -o 'libavformat[^ ]*' <<<"$recommends")" voicememo export wav /home/memo/out.m4a
[ ! -e "$work/bare/home/memo/out.m4a" ] || fail "a failed M4A export leaves no file"
missing libcurl "$(grep -o 'libcurl[^ ]*' <<<"$recommends")" voicememo play --device null --no-meter http://127.0.0.1:1/x
phase "checks without Recommends"

printf 'check-deb: all checks passed; %s: %s bytes\n' "${deb#"$PWD/"}" "$(stat -c %s "$deb")"
