/// The version of this release, which AudioIO, MemoStore, NowPlaying and the `voicememo` command share: a semantic
/// version (`MAJOR.MINOR.PATCH`; while it is 0.x, a change to the public API raises MINOR).
///
/// This line is the one place it is written: `voicememo --version` prints it, `make release` checks CHANGELOG.md
/// against it and tags the commit, and `make deb` names its package by it.
public let audioIOVersion = "0.1.0"
