#!/usr/bin/env bash
# The public API of AudioIO, MemoStore and NowPlaying against the last release's, which `make release` recorded in
# API/ (API/VERSION names that release).
# A break (a removal, a changed signature…) fails unless the version in Sources/AudioIO/Version.swift raises the
# major part over the release's (the minor part while it is 0.x) and CHANGELOG.md's section for what is not yet
# released, `## [Unreleased]` or `## [<version>]`, says **Breaking**. Needs a debug build (`swift build`).
#
# swift-api-digester does the comparing, through `swift package diagnose-api-breaking-changes`, which looks for a
# baseline in `<baseline-dir>/<commit>/<Module>.json` before it builds one: API/'s files are laid there for HEAD.
set -euo pipefail
cd "$(dirname "$0")/.."
products=(AudioIO MemoStore NowPlaying)

version="$(sed -n 's/^public let audioIOVersion = "\(.*\)"$/\1/p' Sources/AudioIO/Version.swift)"
released="$(cat API/VERSION 2>/dev/null || true)"
[ -n "$version" ] || { echo "check-api: no version in Sources/AudioIO/Version.swift"; exit 1; }
[ -n "$released" ] || { echo "check-api: API/VERSION is missing: make release records the API of each release"; exit 1; }
[ "$(printf '%s\n' "$released" "$version" | sort -V | head -1)" = "$released" ] || {
  echo "check-api: the version $version is older than the last release, $released"; exit 1; }
for product in "${products[@]}"; do
  [ -f "API/$product.json" ] || { echo "check-api: API/$product.json is missing: make release records it"; exit 1; }
done

baselines="$(mktemp -d)"
trap 'rm -rf "$baselines"' EXIT
mkdir "$baselines/$(git rev-parse HEAD)"
cp API/*.json "$baselines/$(git rev-parse HEAD)/"
swift package diagnose-api-breaking-changes HEAD --baseline-dir "$baselines" --products "${products[@]}" \
  >"$baselines/report" 2>&1 || true
# Each module is either clean or listed with its breaks; anything else (a failed build, a baseline built afresh
# instead of API/'s) is a failure of the check itself.
grep -q -- '-checkout' "$baselines/report" && { echo "check-api: SwiftPM did not use API/'s baseline"; exit 1; }
for product in "${products[@]}"; do
  grep -Eq "(No breaking changes detected|breaking changes? detected) in $product" "$baselines/report" || {
    grep -v '^\[' "$baselines/report" | tail -20; echo "check-api: $product could not be compared"; exit 1; }
done
breaks="$(grep 'API breakage' "$baselines/report" || true)"
if [ -z "$breaks" ]; then
  echo "check-api: the public API of ${products[*]} keeps every symbol of $released"
  exit 0
fi

echo "$breaks"
IFS=. read -r major minor _ <<<"$released"
IFS=. read -r new_major new_minor _ <<<"$version"
if [ "$major" -eq 0 ]; then raised=$(( new_major > 0 || new_minor > minor )); needed="0.$((minor + 1)).0"
else raised=$(( new_major > major )); needed="$((major + 1)).0.0"; fi
[ "$raised" -eq 1 ] || {
  echo "check-api: these break the public API of $released: the version must become $needed (Sources/AudioIO/Version.swift; it is $version)"
  exit 1; }
section="$(awk '/^## \[/{ if (found) exit; if ($0 ~ /^## \[(Unreleased|'"${version//./\\.}"')\]/) found=1 } found' CHANGELOG.md)"
grep -q 'Breaking' <<<"$section" || {
  echo "check-api: these break the public API of $released: CHANGELOG.md's section for $version must say so (**Breaking**)"
  exit 1; }
echo "check-api: $(wc -l <<<"$breaks") change(s) breaking $released's public API, allowed in $version and told in CHANGELOG.md"
