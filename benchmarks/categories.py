"""Offline four-class category accuracy on one half of the error corpus (no Neo4j).

    python -m benchmarks.categories                 # training half: accuracy, confusion matrix, misses
    python -m benchmarks.categories --no-misses     # figures only

Each message is categorised the way the engine does it for a ``tool_result`` with an error
string (``describe_error(ns, tool, text).category``, no exception types). The held-out half
is for the lead's single measurement after a merge: ``--half test`` is refused unless
``--i-am-the-lead`` is given, so tuning never sees held-out messages or results.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from benchmarks.error_corpus import four_class, load_corpus, split_corpus
from kgmem.learning.plan import describe_error

CLASSES = ("timeout", "permission", "provider_error", "rest")


def evaluate(half: str, show_misses: bool, confusion_out: Counter[tuple[str, str]] | None = None) -> float:
    rows = split_corpus(load_corpus(), half)  # type: ignore[arg-type]
    confusion: Counter[tuple[str, str]] = Counter()
    misses = []
    for r in rows:
        got = four_class(describe_error("eval", "agent", r.text).category)
        want = four_class(r.category)
        confusion[(want, got)] += 1
        if got != want:
            misses.append((want, got, r))
    correct = sum(n for (w, g), n in confusion.items() if w == g)
    acc = correct / len(rows) if rows else 0.0
    if confusion_out is not None:
        confusion_out.update(confusion)
    print(f"{half}: four-class accuracy {acc:.3f} ({correct}/{len(rows)} messages)")
    print("confusion (rows = expected, columns = got):")
    print(f"{'':>16}" + "".join(f"{c:>16}" for c in CLASSES))
    for w in CLASSES:
        print(f"{w:>16}" + "".join(f"{confusion[(w, g)]:>16}" for g in CLASSES))
    if show_misses:
        for want, got, r in misses:
            text = r.text.replace("\n", " ⏎ ")[:400]
            print(f"\n[{r.kind} {r.group}] expected {want}, got {got}\n  {text}")
    return acc


def run(settings: object = None, quick: bool = False) -> dict[str, float | int]:
    """Four-class accuracy of the error categoriser on the training half (offline; the held-out half is
    the lead's, see --i-am-the-lead), and the confusion counts ``confusion.<expected>.<got>``."""
    confusion: Counter[tuple[str, str]] = Counter()
    acc = evaluate("train", show_misses=False, confusion_out=confusion)
    out: dict[str, float | int] = {"train.accuracy": acc, "train.messages": sum(confusion.values())}
    out.update({f"train.confusion.{w}.{g}": confusion[(w, g)] for w in CLASSES for g in CLASSES})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=["train", "test"], default="train")
    parser.add_argument(
        "--i-am-the-lead",
        action="store_true",
        help="allow --half test (held-out): the lead measures it once after a merge",
    )
    parser.add_argument("--no-misses", action="store_true", help="print figures only")
    args = parser.parse_args(argv)
    if args.half == "test" and not args.i_am_the_lead:
        parser.error("--half test is the held-out half: refused without --i-am-the-lead (tune on train only)")
    # Held-out misses are never printed, even for the lead: looking at them would be tuning on them.
    evaluate(args.half, show_misses=not args.no_misses and args.half == "train")
    return 0


if __name__ == "__main__":
    sys.exit(main())
