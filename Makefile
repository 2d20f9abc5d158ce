# voicememo: build, test, documentation, benchmark, install and demo.  `make test` is what CI runs.

PREFIX ?= /usr/local
SWIFT  ?= swift
# The benchmark suite exists in Package.swift only with VOICEMEMO_BENCHMARKS=1. It builds in .build-bench and keeps
# its Package.resolved there between runs, so that the main build's pins never name ordo-one/benchmark.
BENCH   = VOICEMEMO_BENCHMARKS=1 $(SWIFT) package --scratch-path .build-bench
BENCH_BUILD = VOICEMEMO_BENCHMARKS=1 $(SWIFT) build -c release --scratch-path .build-bench

# Debian packages: the C libraries we link, the tools the tests check our files with, the benchmark anchors.
BUILD_PACKAGES = pkg-config libasound2-dev libsndfile1-dev libopus-dev libsoxr-dev libsoundtouch-dev libogg-dev libavformat-dev libavcodec-dev libsystemd-dev libcurl4-openssl-dev libebur128-dev libwebrtc-audio-processing-dev
TEST_PACKAGES  = sox libsox-fmt-all opus-tools alsa-utils pulseaudio libasound2-plugins espeak-ng strace ffmpeg dbus playerctl nginx-light openssl
BENCH_PACKAGES = soundstretch time libspeexdsp-dev g++ python3-venv
PACKAGES       = $(BUILD_PACKAGES) $(TEST_PACKAGES) $(BENCH_PACKAGES)

.PHONY: deps build test docs torture bench bench-enhance install demo clean

## deps: install the Debian packages that are missing (idempotent; as root, or through sudo)
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

## build: a release build of the library and the voicememo binary
build: deps
	$(SWIFT) build -c release

# Suites on the PulseAudio sink (a real clock) or on a device another program holds (the testbusy PCM, also on the
# real clock, whose tests wait for what the command draws), the one that stops and continues a process, and the session and
# jack suites, which time a route change from a card appearing or a jack unplugged: run after the others, which
# drive unclocked devices as fast as the CPU goes and would starve the sound server (or a waiting thread) of the
# time it keeps. A failure there is a bug like any other: nothing is run twice.
CLOCKED_SUITES = CaptureStartTests|PulseRecordingFormatTests|HeldDeviceTests|JobControlTests|NarrowTerminalTests|PlayWhileRecordingTests|BrokenPipeTests|ClockedPlaybackTests|RecordingLoopTests|MeterTests|RecordTests|TerminalDisplayTests|AudioSessionRouteTests|InterruptionTests|DevicesTests|AudioSessionJackTests|DeviceJackTests|AudioSessionTests
# Suites that play in real time for long (a 12-s sleep timer, a stalled download) or publish players on a session
# bus: run last, on their own. On the shared PulseAudio server they would lengthen the line of clocked tests waiting for their turn,
# whose wait counts against their time limits; beside the clocked suites, on servers of their own, they would load
# the machine while those keep time.
PLAYER_SUITES = KeyToSoundTests|MarkedRecordingTests|NowPlayingTests|PlayNowPlayingTests|SleepTimerTests|PlayKeysTests|RemoteStallTests|ReadmeCommandTests

# Swift Testing starts every test of a run at once, and on a pool of as many threads as cores they all take turns:
# each test then lasts about as long as the whole run, and a run past a minute failed tests with one-minute limits
# that need a few seconds (all of them ended at 57 s of a 58-s run). Four at a time, a test lasts about its own
# work (the longest with a limit: 16 s), and the run is no slower.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH = 4

## test: deps, build and every test (the torture suites on their own, the clocked-device suites last and alone:
## they measure real time)
## The torture suites' tests hold a thread of the test pool (as many threads as cores) for up to a minute or two
## each, waiting on the processes they drive; beside the other suites, two of them would leave those suites'
## waiting tests no thread to resume on before their time limits.
## The library's suites and the command's run apart for the same reason: the command's tests wait for the
## processes they drive on a thread of the pool, and together they left the library's tests, which wait on
## players in the pool, no thread to resume on (a fresh clone: 127 issues, all time limits; apart: 56 s and 87 s).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --filter '^(AudioIOTests|MemoStoreTests|TestSupport)\.' --skip '$(CLOCKED_SUITES)|$(PLAYER_SUITES)|Torture'
	$(SWIFT) test --filter '^(VoiceMemoTests|NowPlayingTests)\.' --skip '$(CLOCKED_SUITES)|$(PLAYER_SUITES)|Torture'
	$(SWIFT) test --filter 'Torture'
	$(SWIFT) test --filter '$(CLOCKED_SUITES)'
	$(SWIFT) test --filter '$(PLAYER_SUITES)'

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

## torture: the torture suites (Tests/VoiceMemoTests/Torture) at full strength: thousands of damaged files and
## index files, 200 kills, 10,000 memos, an 8-hour recording; and 5,000 damaged Ogg files (OggFuzzTests). `make test`
## runs the same suites lightly.
torture: deps
	$(SWIFT) build --build-tests
	VOICEMEMO_TORTURE=1 $(SWIFT) test --filter 'Torture|OggFuzzTests'

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
## its bash, zsh and fish completions into $(PREFIX)/share, where the shells and man look for them
SHARE = $(DESTDIR)$(PREFIX)/share
install: build
	$(SWIFT) package generate-manual --configuration release
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/voicememo/presets $(SHARE)/man/man1 $(SHARE)/bash-completion/completions \
	  $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	bin="$$($(SWIFT) build -c release --show-bin-path)/voicememo"; \
	install -m 755 "$$bin" $(DESTDIR)$(PREFIX)/bin/voicememo && \
	"$$bin" --generate-completion-script bash > $(SHARE)/bash-completion/completions/voicememo && \
	"$$bin" --generate-completion-script zsh > $(SHARE)/zsh/site-functions/_voicememo && \
	"$$bin" --generate-completion-script fish > $(SHARE)/fish/vendor_completions.d/voicememo.fish
	install -m 644 Presets/*.json $(SHARE)/voicememo/presets/
	install -m 644 .build/plugins/GenerateManual/outputs/voicememo/voicememo.1 $(SHARE)/man/man1/voicememo.1

## demo: record, list, play and export a memo end to end, on the sound card or, without one, on a virtual device
## (a private PulseAudio null sink); in a store of its own under demo/ so that nothing of yours is touched
demo: deps
	$(SWIFT) build
	Scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/voicememo"

clean:
	rm -rf .build .build-bench .benchmarkBaselines demo
