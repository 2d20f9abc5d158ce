#!/usr/bin/env bash
# make release VERSION=X.Y.Z: once CHANGELOG.md has its `## [X.Y.Z] - YYYY-MM-DD` section (under an empty
# `## [Unreleased]`) and Sources/AudioIO/Version.swift says X.Y.Z, checks both, checks the public API against the last
# release's (Scripts/check-api.sh), commits "Release X.Y.Z" with the API of this release recorded in API/, and tags
# it X.Y.Z. The commit says which release it is without the tag: a clone may lack tags.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-}"
fail() { echo "make release: $*"; exit 1; }

[[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] || fail "VERSION=X.Y.Z, a semantic version (it is '$version')"
changed="$(git status --porcelain | grep -v -e ' Sources/AudioIO/Version.swift$' -e ' CHANGELOG.md$' || true)"
[ -z "$changed" ] || fail "commit or put aside what is not the release's (only Version.swift and CHANGELOG.md may change):
$changed"
! git rev-parse -q --verify "refs/tags/$version" >/dev/null || fail "the tag $version exists already"

in_source="$(sed -n 's/^public let audioIOVersion = "\(.*\)"$/\1/p' Sources/AudioIO/Version.swift)"
[ "$in_source" = "$version" ] || fail "Sources/AudioIO/Version.swift says $in_source: set audioIOVersion to \"$version\""

headings="$(grep '^## \[' CHANGELOG.md)"
[ "$(sed -n 1p <<<"$headings")" = "## [Unreleased]" ] || fail "CHANGELOG.md starts with '## [Unreleased]', for what comes next"
[[ "$(sed -n 2p <<<"$headings")" =~ ^"## ["${version//./\\.}"] - "[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] ||
  fail "CHANGELOG.md's first release is '## [$version] - YYYY-MM-DD' (it is '$(sed -n 2p <<<"$headings")')"
unreleased="$(awk '/^## \[/{ n++ } n == 1 && !/^## \[/' CHANGELOG.md | grep -c '^- ' || true)"
[ "$unreleased" -eq 0 ] || fail "CHANGELOG.md's [Unreleased] still has entries: move them into $version"
entries="$(awk '/^## \[/{ n++ } n == 2 && !/^## \[/' CHANGELOG.md | grep -c '^- ' || true)"
[ "$entries" -gt 0 ] || fail "CHANGELOG.md's section for $version says nothing"
previous="$(sed -n 3p <<<"$headings" | sed -n 's/^## \[\(.*\)\].*/\1/p')"
if [ -n "$previous" ]; then
  [ "$(printf '%s\n' "$previous" "$version" | sort -V | tail -1)" = "$version" ] && [ "$previous" != "$version" ] ||
    fail "$version does not come after the last release, $previous"
  [ "$(cat API/VERSION)" = "$previous" ] || fail "API/VERSION is not $previous, the last release"
  swift build
  bash Scripts/check-api.sh
fi

git add Sources/AudioIO/Version.swift CHANGELOG.md
git commit -q --allow-empty -m "Release $version" -m "$(awk '/^## \[/{ n++ } n == 2 && !/^## \[/' CHANGELOG.md)"
# The API of the commit just made, as SwiftPM's API digester dumps it from a checkout of it.
baselines="$(mktemp -d)"
trap 'rm -rf "$baselines"' EXIT
swift package diagnose-api-breaking-changes HEAD --baseline-dir "$baselines" --regenerate-baseline \
  --products AudioIO MemoStore NowPlaying | grep -v '^\[' || true
mkdir -p API
cp "$baselines/$(git rev-parse HEAD)"/*.json API/
echo "$version" > API/VERSION
git add API
git commit -q --amend --no-edit
git tag -a "$version" -m "voicememo $version"
echo "make release: $version is commit $(git rev-parse --short HEAD), tagged $version; push it with: git push origin main $version"
