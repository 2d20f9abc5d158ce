# voicememo: build, test, documentation, benchmark, install and demo.  `make test` is what CI runs.

PREFIX ?= /usr/local
SWIFT  ?= swift
# The benchmark suite exists in Package.swift only with VOICEMEMO_BENCHMARKS=1. It builds in .build-bench and keeps
# its Package.resolved there between runs, so that the main build's pins never name ordo-one/benchmark.
BENCH   = VOICEMEMO_BENCHMARKS=1 $(SWIFT) package --scratch-path .build-bench
BENCH_BUILD = VOICEMEMO_BENCHMARKS=1 $(SWIFT) build -c release --scratch-path .build-bench

# Debian packages: the C libraries we link, the tools the tests check our files with (and python3, which chooses the
# groups `make test` runs), the benchmark anchors.
BUILD_PACKAGES = pkg-config libasound2-dev libsndfile1-dev libopus-dev libsoxr-dev libsoundtouch-dev libogg-dev libavformat-dev libavcodec-dev libsystemd-dev libcurl4-openssl-dev libebur128-dev libwebrtc-audio-processing-dev
TEST_PACKAGES  = sox libsox-fmt-all opus-tools alsa-utils pulseaudio libasound2-plugins espeak-ng strace ffmpeg dbus playerctl nginx-light openssl python3 syncthing rsync
BENCH_PACKAGES = soundstretch time libspeexdsp-dev g++ python3-venv
PACKAGES       = $(BUILD_PACKAGES) $(TEST_PACKAGES) $(BENCH_PACKAGES)

.PHONY: deps build build-debug lint test-groups test docs torture bench bench-enhance install check-api check-dependent \
  check-install release deb check-deb demo clean

## deps: install the Debian packages that are missing (idempotent; as root, or through sudo); `make deps PACKAGES=…`
## installs another list
deps:
	@missing=$$(for package in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$package 2>/dev/null | grep -q '^install ok installed$$' || echo $$package; \
	  done); \
	if [ -n "$$missing" ]; then \
	  sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  echo "make deps: installing" $$missing; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# Commit subjects are at most 72 characters (.gitmessage is the template). The commits up to this one stay as they
# were written: make lint checks those after it.
LINT_BASE = c8a78f27a4d74a57a8cbe19a358888612d548fa2

## lint: every commit subject after LINT_BASE (up to HEAD) is at most 72 characters
lint:
	@git rev-parse --quiet --verify '$(LINT_BASE)^{commit}' >/dev/null || \
	  { echo "make lint: $(LINT_BASE) is not in this clone's history (a shallow clone: git fetch --unshallow)"; exit 1; }
	@long=$$(git log --format='%h%x09%s' '$(LINT_BASE)..HEAD' | LC_ALL=C.UTF-8 grep -E "$$(printf '\t').{73}"); \
	if [ -n "$$long" ]; then \
	  echo "make lint: commit subjects longer than 72 characters (the why goes in the body, after a blank line):"; \
	  echo "$$long"; exit 1; \
	fi; \
	echo "make lint: $$(git rev-list --count '$(LINT_BASE)..HEAD') commit subjects after $(LINT_BASE), none over 72 characters"

## build: a release build of the library and the voicememo binary; installs the build's Debian packages only
build:
	@$(MAKE) --no-print-directory deps PACKAGES='$(BUILD_PACKAGES)'
	$(SWIFT) build -c release

# Swift Testing starts every test of a run at once, and on a pool of as many threads as cores they all take turns:
# each test then lasts about as long as the whole run, and a run past a minute failed tests with one-minute limits
# that need a few seconds (all of them ended at 57 s of a 58-s run). Four at a time, a test lasts about its own
# work (the longest with a limit: 16 s), and the run is no slower.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH = 4

# The test targets whose untagged tests run together: the library's, then the command's. They run apart because the
# command's tests wait for the processes they drive on a thread of the pool, and together they left the library's
# tests, which wait on players in the pool, no thread to resume on (a fresh clone: 127 issues, all time limits; apart:
# 56 s and 87 s).
LIBRARY_TESTS = AudioIOTests|MemoStoreTests|TestSupport
COMMAND_TESTS = VoiceMemoTests|NowPlayingTests
GROUPS = .build/test-groups

## test-groups: build the tests and choose the groups `make test` runs apart by the tags the suites declare
## (Tests/TestSupport/Tags.swift says why each runs apart): .torture, then .clocked, then .player, each on its own,
## after the untagged tests of LIBRARY_TESTS and of COMMAND_TESTS. `swift test` filters by test IDs only, so
## Scripts/test-groups.py turns the tags the built tests list into filters of IDs, into $(GROUPS); it fails unless
## every test runs in exactly one group, and prints how many run in each
test-groups: deps
	$(SWIFT) build --build-tests
	@mkdir -p $(GROUPS)
	SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1 $(SWIFT) test list --skip-build --experimental-event-stream-output $(GROUPS)/tests.jsonl >/dev/null
	python3 Scripts/test-groups.py $(GROUPS)/tests.jsonl $(GROUPS) '$(LIBRARY_TESTS)' '$(COMMAND_TESTS)'

## test: deps, build and every test, in the groups of test-groups
test: test-groups
	$(SWIFT) test --filter '^($(LIBRARY_TESTS))\.' --skip "$$(cat $(GROUPS)/tagged)"
	$(SWIFT) test --filter '^($(COMMAND_TESTS))\.' --skip "$$(cat $(GROUPS)/tagged)"
	$(SWIFT) test --filter "$$(cat $(GROUPS)/torture)"
	$(SWIFT) test --filter "$$(cat $(GROUPS)/clocked)"
	$(SWIFT) test --filter "$$(cat $(GROUPS)/player)"

## docs: the DocC documentation of AudioIO and MemoStore (Sources/*/*.docc and the doc comments), built by the
## toolchain's docc from the symbol graphs of a debug build (no package dependency), into
## .build/docs/<Module>.doccarchive; a broken link or an unknown symbol is an error that fails it
DOC_MODULES = AudioIO MemoStore
DOCC ?= $(dir $(realpath $(shell command -v $(SWIFT))))docc
docs: deps
	$(SWIFT) package dump-symbol-graph --minimum-access-level public
	@set -e; graphs="$$($(SWIFT) build --show-bin-path)/../symbolgraph"; \
	for module in $(DOC_MODULES); do \
	  rm -rf .build/docs/symbol-graphs/$$module .build/docs/$$module.doccarchive; \
	  mkdir -p .build/docs/symbol-graphs/$$module; \
	  cp "$$graphs/$$module.symbols.json" $$(ls "$$graphs/$$module@"*.symbols.json 2>/dev/null) .build/docs/symbol-graphs/$$module/; \
	  echo "docc convert Sources/$$module/$$module.docc"; \
	  "$(DOCC)" convert "Sources/$$module/$$module.docc" --additional-symbol-graph-dir .build/docs/symbol-graphs/$$module \
	    --output-dir .build/docs/$$module.doccarchive --warnings-as-errors; \
	done

## torture: the torture suites (.torture: Tests/VoiceMemoTests/Torture) at full strength: thousands of damaged files and
## index files, 200 kills, 10,000 memos, an 8-hour recording; and 5,000 damaged Ogg files (OggFuzzTests). `make test`
## runs the same suites lightly.
torture: test-groups
	VOICEMEMO_TORTURE=1 $(SWIFT) test --filter "$$(cat $(GROUPS)/torture)|^AudioIOTests\.OggFuzzTests(/|$$)"

## bench: the benchmarks of Benchmarks/ (ordo-one/benchmark, release build) as one run: stored as the baseline
## "bench" (.benchmarkBaselines/), printed, then checked against Benchmarks/Thresholds (mallocs per render and
## capture cycle: 0); then Benchmarks/compare.sh, the whole-process comparisons with sox, opusenc, soundstretch,
## aplay, arecord and python3, on a release build of voicememo (about 15 minutes)
bench: deps
	@mkdir -p .build-bench; \
	if [ -f Package.resolved ]; then mv Package.resolved .build-bench/Package.resolved.main; fi; \
	if [ -f .build-bench/Package.resolved ]; then mv .build-bench/Package.resolved Package.resolved; fi; \
	restore() { set +x; \
	  if [ -f Package.resolved ]; then mv Package.resolved .build-bench/Package.resolved; fi; \
	  if [ -f .build-bench/Package.resolved.main ]; then mv .build-bench/Package.resolved.main Package.resolved; fi; \
	}; \
	trap restore EXIT; trap 'exit 130' INT TERM; \
	set -ex; \
	$(BENCH) --allow-writing-to-package-directory benchmark baseline update bench --no-progress; \
	$(BENCH) benchmark baseline read bench --no-progress; \
	$(BENCH) benchmark thresholds check bench --path Benchmarks/Thresholds --no-progress; \
	$(BENCH_BUILD) --product voicememo; \
	bash Benchmarks/compare.sh "$$($(BENCH_BUILD) --show-bin-path)/voicememo"

## bench-enhance: speech enhancement measured (Benchmarks/enhance.py, about 5 minutes): espeak-ng speech in fan, street
## and babble noise at 0, 5 and 10 dB, cleaned by sox's noisered, libspeexdsp, webrtc-audio-processing and voicememo
## enhance, scored by SI-SDR, STOI and PESQ; numpy, scipy, pystoi and pesq come from PyPI into .build-bench/venv
bench-enhance: deps
	python3 -m venv .build-bench/venv
	.build-bench/venv/bin/pip install -q numpy scipy pystoi pesq
	$(SWIFT) build -c release --product voicememo
	.build-bench/venv/bin/python Benchmarks/enhance.py "$$($(SWIFT) build -c release --show-bin-path)/voicememo"

## install: voicememo into $(PREFIX)/bin, its presets, its manual page (swift-argument-parser's generate-manual) and
## its bash, zsh and fish completions into $(PREFIX)/share, where the shells and man look for them. The presets go to
## share/voicememo-presets: share/voicememo is the memo store's default place when PREFIX is ~/.local. Built-in presets
## an earlier install put into share/voicememo/presets are removed (nothing else there is)
SHARE = $(DESTDIR)$(PREFIX)/share
install: build
	$(SWIFT) package generate-manual --configuration release
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/voicememo-presets $(SHARE)/man/man1 $(SHARE)/bash-completion/completions \
	  $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	@for preset in Presets/*.json; do rm -f "$(SHARE)/voicememo/presets/$${preset#Presets/}"; done; \
	rmdir "$(SHARE)/voicememo/presets" 2>/dev/null || true
	bin="$$($(SWIFT) build -c release --show-bin-path)/voicememo"; \
	install -m 755 "$$bin" $(DESTDIR)$(PREFIX)/bin/voicememo && \
	"$$bin" --generate-completion-script bash > $(SHARE)/bash-completion/completions/voicememo && \
	"$$bin" --generate-completion-script zsh > $(SHARE)/zsh/site-functions/_voicememo && \
	"$$bin" --generate-completion-script fish > $(SHARE)/fish/vendor_completions.d/voicememo.fish
	install -m 644 Presets/*.json $(SHARE)/voicememo-presets/
	install -m 644 .build/plugins/GenerateManual/outputs/voicememo/voicememo.1 $(SHARE)/man/man1/voicememo.1

## check-api: the public API of AudioIO, MemoStore and NowPlaying against the last release's (API/): a break fails
## unless the version's major part is raised (the minor part while it is 0.x) and CHANGELOG.md says so
## (Scripts/check-api.sh)
check-api: build-debug
	bash Scripts/check-api.sh

## check-dependent: a package outside this repository that depends on a clone of it by version
## (`.package(url:from:)`, Scripts/DependentPackage) builds and plays a file (Scripts/check-dependent.sh)
check-dependent:
	@$(MAKE) --no-print-directory deps PACKAGES='$(BUILD_PACKAGES) sox'
	bash Scripts/check-dependent.sh

## check-install: voicememo as people adopt it, after `make test` in CI: the API against the last release, a
## dependent package by version, the .deb built, installed into a clean Debian 12 and used there
check-install: check-api check-dependent check-deb

## release: make release VERSION=X.Y.Z checks CHANGELOG.md's section for X.Y.Z and Version.swift, checks the API
## against the last release's, commits "Release X.Y.Z" with the API recorded in API/ and tags it (Scripts/release.sh;
## the README's "Releases" says how)
release:
	@$(MAKE) --no-print-directory deps PACKAGES='$(BUILD_PACKAGES)'
	bash Scripts/release.sh '$(VERSION)'

build-debug:
	@$(MAKE) --no-print-directory deps PACKAGES='$(BUILD_PACKAGES)'
	$(SWIFT) build

## deb: .build/deb/voicememo_<version>_<arch>.deb: the voicememo of a release build with the Swift runtime linked in, its
## manual page, completions and presets, its Depends and Recommends computed, no error from lintian
## (Packaging/build-deb.sh)
## check-deb: installs that .deb with apt-get into a clean Debian 12 root without a Swift toolchain (made by mmdebstrap
## once, kept in /var/cache/voicememo-check), with its Recommends and without them, uses it as a user would, removes
## it; fails on the first check that fails, prints the time of each phase (Packaging/check-deb.sh; as root, or through
## sudo)
# What packaging needs besides BUILD_PACKAGES, installed by deps (`make deps PACKAGES=...` installs any list):
# dpkg-shlibdeps and dpkg-gencontrol (dpkg-dev), lintian, mmdebstrap.
DEB_PACKAGES = dpkg-dev lintian mmdebstrap
deb:
	@$(MAKE) --no-print-directory deps PACKAGES='$(BUILD_PACKAGES) $(DEB_PACKAGES)'
	SWIFT='$(SWIFT)' Packaging/build-deb.sh

check-deb: deb
	Packaging/check-deb.sh

## demo: record, list, play and export a memo end to end, on the sound card or, without one, on a virtual device
## (a private PulseAudio null sink); in a store of its own under demo/ so that nothing of yours is touched
demo: deps
	$(SWIFT) build
	Scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/voicememo"

clean:
	rm -rf .build .build-bench .benchmarkBaselines demo
