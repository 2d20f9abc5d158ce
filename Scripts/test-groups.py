#!/usr/bin/env python3
"""The groups `make test` runs apart, chosen by the tags the tests declare (Tests/TestSupport/Tags.swift).

    Scripts/test-groups.py LISTING DIR LIBRARY_TARGETS COMMAND_TARGETS

LISTING is what `swift test list --experimental-event-stream-output` wrote with the event stream's experimental fields
on (SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1), which carry each suite's and test's own tags. `swift test` filters
by regular expressions of test IDs only (Swift 6.3: `--filter tag:clocked` matches nothing), so this writes, into DIR,
one for each tag: `clocked`, `player` and `torture` match the suites and tests that declare that tag (and so what is in
them), `tagged` any of the three. The untagged tests run by test target: LIBRARY_TARGETS and COMMAND_TARGETS are the
alternations the Makefile filters them by (`AudioIOTests|MemoStoreTests|TestSupport`).

It then applies the five groups' filters to every test listed as `swift test` does (a test runs when its ID or one of
its suites' matches a `--filter` and none matches a `--skip`) and fails unless each runs in exactly one group.
"""
import json
import re
import sys

TAGS = ["torture", "clocked", "player"]


def main(listing, directory, library_targets, command_targets):
    declared = {tag: [] for tag in TAGS}  # the IDs of the suites and tests that declare each tag
    suites, functions = [], []
    with open(listing) as lines:
        for line in lines:
            record = json.loads(line)
            if record.get("kind") != "test":
                continue
            test = record["payload"]
            (functions if test["kind"] == "function" else suites).append(test["id"])
            for tag in test.get("_tags", []):
                if tag.lstrip(".") in declared:
                    declared[tag.lstrip(".")].append(test["id"])
    for tag, ids in declared.items():
        if not ids:
            sys.exit(f"test-groups: no test declares .{tag}: does the listing still carry the tests' tags (_tags)?")

    patterns = {tag: "^(" + "|".join(re.escape(id) for id in sorted(ids)) + ")(/|$)" for tag, ids in declared.items()}
    patterns["tagged"] = "|".join(patterns[tag] for tag in TAGS)
    for name, pattern in patterns.items():
        with open(f"{directory}/{name}", "w") as file:
            file.write(pattern)

    # The groups as the Makefile runs them: (name, --filter, --skip).
    groups = [
        ("library", rf"^({library_targets})\.", patterns["tagged"]),
        ("command", rf"^({command_targets})\.", patterns["tagged"]),
    ] + [(tag, patterns[tag], None) for tag in TAGS]

    def matches(pattern, test):
        # The test's ID or one of its suites' (a nested suite's ID goes on with "/Inner").
        return any(re.search(pattern, id) for id in [test] + [suite for suite in suites if test.startswith(suite + "/")])

    runs = {name: [] for name, _, _ in groups}
    wrong = []
    for test in functions:
        selected = [name for name, filter, skip in groups if matches(filter, test) and not (skip and matches(skip, test))]
        for name in selected:
            runs[name].append(test)
        if len(selected) != 1:
            wrong.append(f"{test}: runs in {len(selected)} groups ({', '.join(selected) or 'none'})")
    print("test-groups: " + ", ".join(f"{name} {len(tests)}" for name, tests in runs.items())
          + f" of {len(functions)} tests")
    if wrong:
        sys.exit("test-groups: every test must run in exactly one group of `make test`:\n  " + "\n  ".join(wrong))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
