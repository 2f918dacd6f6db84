#!/usr/bin/env python3
"""Names the tests a Swift Testing run started but did not end, from its event stream
(--event-stream-output-path, version 0): what scripts/test.sh prints when a run hangs."""
import json
import sys


def main(path: str) -> int:
    running: dict[str, int] = {}
    run_ended = False
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            for line in stream:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the last line may be cut off by the kill
                payload = record.get("payload") or {}
                if record.get("kind") != "event":
                    continue
                kind, test = payload.get("kind"), payload.get("testID")
                if kind == "runEnded":
                    run_ended = True
                elif kind == "testStarted" and test:
                    running[test] = running.get(test, 0) + 1
                elif kind == "testEnded" and test in running:
                    running[test] -= 1
                    if running[test] == 0:
                        del running[test]
    except OSError as error:
        print(f"no event stream to read ({error})")
        return 1
    if run_ended:
        print("every test ended and the run reported its end: the process hung while exiting")
    # A suite's own entry stays open while any of its tests runs; list only the innermost ones.
    innermost = [test for test in running if not any(other != test and other.startswith((test + "/", test + ".")) for other in running)]
    for test in sorted(innermost):
        print(f"still running: {test}")
    if not running and not run_ended:
        print("no test was running: the run hung between tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
