#!/usr/bin/env bash
# `make deb`: .build/deb/voicememo_<version>_<arch>.deb from a release build with the Swift runtime linked in, so
# that the package needs none of the toolchain's libraries; lintian must find no error in it.
#
# The control file is made the way Debian makes it: dpkg-shlibdeps computes Depends from the libraries the binary
# links, dpkg-gencontrol fills in Packaging/debian/control. FFmpeg and libcurl are not linked (the binary dlopen()s
# them on first use) and so go to Recommends, computed too: the sonames it dlopen()s are string literals in its
# .rodata, and each is looked up in the dpkg database.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
umask 022

version=$(sed -n 's/^public let audioIOVersion = "\(.*\)"$/\1/p' Sources/AudioIO/Version.swift)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "build-deb: no version in Sources/AudioIO/Version.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
out=.build/deb
deb=$out/voicememo_${version}_$arch.deb
work=$out/work            # debian/ as dpkg-gencontrol expects it, and debian/voicememo, the package's tree
pkg=$work/debian/voicememo
# The tar entries' times, the changelog's date: the last commit's, so that a build of a commit is the same bytes.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH

# Seconds from one $EPOCHREALTIME to another, to a tenth.
seconds() { awk -v from="$1" -v to="$2" 'BEGIN { printf "%.1f", to - from }'; }

started=$EPOCHREALTIME
# The manual page, from the debug build in .build that `make test` has made already (the text is the same as a
# release build's; a release build of it would take minutes). The static build has a scratch path of its own:
# switching .build between the two recompiles every module.
"$SWIFT" package generate-manual
# No $ORIGIN run path: nothing of the package is beside the binary (lintian: custom-library-search-path).
static=(-c release --static-swift-stdlib --disable-local-rpath --scratch-path "$out/swift")
"$SWIFT" build "${static[@]}" --product voicememo
bin="$("$SWIFT" build "${static[@]}" --show-bin-path)/voicememo"
built=$EPOCHREALTIME

rm -rf "$work"
install -d "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/share/man/man1" "$pkg/usr/share/voicememo-presets" "$pkg/usr/share/doc/voicememo" \
  "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/zsh/vendor-completions" \
  "$pkg/usr/share/fish/vendor_completions.d"
# What dh_strip does to a program: debug symbols and the compiler's notes go.
install -m 755 "$bin" "$pkg/usr/bin/voicememo"
strip --remove-section=.comment --remove-section=.note "$pkg/usr/bin/voicememo"
# A blank line between two paragraphs of a command's discussion, as generate-manual leaves it, is a warning to mdoc
# (and lintian): .Pp is its paragraph break.
sed 's/^$/.Pp/' .build/plugins/GenerateManual/outputs/voicememo/voicememo.1 | gzip -9n >"$pkg/usr/share/man/man1/voicememo.1.gz"
# The bash script starts with #!/bin/bash, which a sourced, non-executable file must not have (lintian).
"$bin" --generate-completion-script bash | sed '1{/^#!/d}' >"$pkg/usr/share/bash-completion/completions/voicememo"
"$bin" --generate-completion-script zsh >"$pkg/usr/share/zsh/vendor-completions/_voicememo"
"$bin" --generate-completion-script fish >"$pkg/usr/share/fish/vendor_completions.d/voicememo.fish"
# AudioPreset.searchDirectories looks in ../share/voicememo-presets beside the running binary.
install -m 644 Presets/*.json "$pkg/usr/share/voicememo-presets/"

# The licence in DEP-5 form: the header of Packaging/debian/copyright, then LICENSE's holder and text.
{
  cat Packaging/debian/copyright
  sed -n 's/^Copyright (c) /Copyright: /p' LICENSE
  echo "License: Expat"
  sed '1,/^Copyright/d' LICENSE | sed '1{/^$/d}; s/^$/./; s/^/ /'
} >"$pkg/usr/share/doc/voicememo/copyright"

# The changelogs: the project's own, and Debian's, which dpkg-gencontrol reads the version from.
mkdir -p "$work/debian"
cp Packaging/debian/control "$work/debian/control"
maintainer=$(sed -n 's/^Maintainer: //p' Packaging/debian/control)
cat >"$work/debian/changelog" <<EOF
voicememo ($version) bookworm; urgency=medium

  * Release $version: see /usr/share/doc/voicememo/changelog.gz.

 -- $maintainer  $(date -R -u -d "@$SOURCE_DATE_EPOCH")
EOF
gzip -9n <"$work/debian/changelog" >"$pkg/usr/share/doc/voicememo/changelog.Debian.gz"
if [ -f CHANGELOG.md ]; then gzip -9n <CHANGELOG.md >"$pkg/usr/share/doc/voicememo/changelog.gz"; fi

# Depends, from the libraries the binary links; Recommends, from those it dlopen()s: for each soname, the package
# whose file the dynamic loader's cache resolves it to.
objcopy -O binary --only-section=.rodata "$bin" "$work/rodata"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
recommends=$(for soname in $(strings -n 6 "$work/rodata" | grep -xE 'lib[A-Za-z0-9_+-]+\.so\.[0-9]+' | sort -u); do
  file=$(/sbin/ldconfig -p | awk -v soname="$soname" -v dir="/$multiarch/" '$1 == soname && index($NF, dir) { print $NF; exit }')
  [ -n "$file" ] || { echo "build-deb: voicememo dlopen()s $soname, which is not installed here" >&2; exit 1; }
  dpkg -S "$(readlink -f "$file")" | cut -d: -f1
done | sort -u | paste -sd, | sed 's/,/, /g')
(
  cd "$work"
  dpkg-shlibdeps -Tdebian/substvars debian/voicememo/usr/bin/voicememo
  echo "dlopen:Recommends=$recommends" >>debian/substvars
  dpkg-gencontrol -pvoicememo -Pdebian/voicememo
  cd debian/voicememo && find usr -type f -print0 | sort -z | xargs -0 md5sum >DEBIAN/md5sums
)
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
packaged=$EPOCHREALTIME

echo "build-deb: $deb"
sed -n 's/^\(Depends\|Recommends\|Installed-Size\): /  \1: /p' "$pkg/DEBIAN/control"
# Errors fail the build; warnings are printed (there were none, and no override, when this was written).
lintian --fail-on error "$deb" || { echo "build-deb: lintian found errors" >&2; exit 1; }
printf 'build-deb: build %s s, package %s s, lintian %s s; %s: %s bytes (%s KiB installed)\n' \
  "$(seconds "$started" "$built")" "$(seconds "$built" "$packaged")" "$(seconds "$packaged" "$EPOCHREALTIME")" \
  "$deb" "$(stat -c %s "$deb")" "$(sed -n 's/^Installed-Size: //p' "$pkg/DEBIAN/control")"
