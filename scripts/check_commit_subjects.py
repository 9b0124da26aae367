"""Fail when a commit subject is longer than 72 characters (the detail belongs in the body).

Checks every commit in ``BASE..HEAD`` and BASE itself. BASE defaults to 1bd113c ("style: ruff
format ..."), the first commit this rule applies to: the history before it is not rewritten.
Needs the full history (a fresh ``git clone`` has it; a shallow one does not).

Usage: python scripts/check_commit_subjects.py [BASE] [HEAD]
"""

from __future__ import annotations

import subprocess
import sys

BASE = "1bd113c"
MAX_CHARS = 72


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True, encoding="utf-8").stdout


def main(argv: list[str]) -> int:
    base = argv[1] if len(argv) > 1 else BASE
    head = argv[2] if len(argv) > 2 else "HEAD"
    try:
        git("rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    except subprocess.CalledProcessError:
        print(
            f"commit subjects: base commit {base} is not in this clone's history (a shallow clone? "
            "run `git fetch --unshallow`)",
            file=sys.stderr,
        )
        return 2
    # %x00 ends each record: a subject never holds a NUL byte.
    log = git("log", "-n", "1", "--format=%h %s%x00", base) + git("log", "--format=%h %s%x00", f"{base}..{head}")
    too_long = []
    checked = 0
    for record in log.split("\0"):
        record = record.strip("\n")
        if not record:
            continue
        checked += 1
        sha, _, subject = record.partition(" ")
        if len(subject) > MAX_CHARS:
            too_long.append((sha, subject))
    for sha, subject in too_long:
        print(f"{sha}: subject is {len(subject)} characters (max {MAX_CHARS}): {subject}")
    if too_long:
        print(f"commit subjects: {len(too_long)} of {checked} longer than {MAX_CHARS} characters", file=sys.stderr)
        return 1
    print(f"commit subjects: {checked} checked since {base}, none longer than {MAX_CHARS} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
