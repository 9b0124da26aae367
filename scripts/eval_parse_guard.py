#!/usr/bin/env python
"""Would a dependency parse make the judge's negation verdicts safer? A measurement, not a rule of the judge.

The issue's definition: a contradiction by negation denies the same claim. With spaCy (the pipeline the
concept extractor loads, ``[concepts] model``), each negation's claim is its head word and that word's
complements (``dobj``, ``acomp``, ``attr``, ``prt``, ``oprd``, ``xcomp``); the guard keeps a ``negation``
verdict only when some claim word of one side (lemma or the judge's stem) is said by the other, and turns it
into "not a contradiction" otherwise (a paraphrase when the cosine is at least ``dedup_cosine``, else a new
item). ``--adjectives`` asks the same only of negated adjectives ("isn't great", "not sure"). Figures per
batch group of tests/data/knowledge_pairs.jsonl, the judge as it is and with the guard:

    PYTHONPATH=$PWD .venv/bin/python scripts/eval_parse_guard.py [--adjectives] [--groups 1-11,12]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_knowledge  # noqa: E402

_NEGATIONS = frozenset("not n't never no barely hardly scarcely nobody nothing none without".split())
_COMPLEMENTS = frozenset("dobj acomp attr prt oprd xcomp".split())
_NO_CLAIM = frozenset("PRON AUX DET PART PUNCT".split())


def claims(doc: Any, adjectives: bool) -> list[set[str]]:
    """The lemmas each negation of the parsed text denies: its head and the head's complements."""
    out = []
    for tok in doc:
        if tok.lower_ not in _NEGATIONS and tok.dep_ != "neg":
            continue
        words = [tok.head, *(c for c in tok.head.children if c.dep_ in _COMPLEMENTS)]
        if adjectives:
            words = [w for w in words if w.pos_ == "ADJ"]
        lemmas = {w.lemma_.lower() for w in words if not w.is_stop and w.pos_ not in _NO_CLAIM}
        if lemmas:
            out.append(lemmas)
    return out


def same_claim(nlp: Any, a: str, b: str, adjectives: bool) -> bool:
    """Some negation of one side denies a word the other says; True too when the parse finds no claim."""
    from kgmem.analysis.parsing import stem_of, words_of

    found = False
    for x, y in ((a, b), (b, a)):
        said = {t.lemma_.lower() for t in nlp(y)}
        stems = {stem_of(w) for w in words_of(y)} | {stem_of(w) for lemma in said for w in words_of(lemma)}
        for lemmas in claims(nlp(x), adjectives):
            found = True
            if any(stem_of(w) in stems for lemma in lemmas for w in words_of(lemma)) or lemmas & said:
                return True
    return not found


def figures(rows: list[dict[str, Any]]) -> str:
    n = Counter(r["label"] for r in rows)
    got = Counter((r["label"], r["got"]) for r in rows)
    return (
        f"paraphrase merged {got['paraphrase', 'paraphrase']}/{n['paraphrase']}, contradiction detected "
        f"{got['contradiction', 'contradiction']}/{n['contradiction']}, paraphrase called contradiction "
        f"{got['paraphrase', 'contradiction']}/{n['paraphrase']}, unrelated merged "
        f"{got['unrelated', 'paraphrase']}/{n['unrelated']}, unrelated called contradiction "
        f"{got['unrelated', 'contradiction']}/{n['unrelated']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adjectives", action="store_true", help="guard negated adjectives only")
    parser.add_argument("--groups", default="1-11,12", help="batch groups, e.g. 1-11,12")
    args = parser.parse_args(argv)
    import spacy

    from kgmem.config import Settings
    from kgmem.vectors import Embedder

    settings = Settings()
    nlp = spacy.load(settings.concepts.model, exclude=["ner"])
    embedder = Embedder(settings.embedding, settings.models_dir)
    limits = eval_knowledge.thresholds(settings)
    rows = []
    for row in eval_knowledge.load(eval_knowledge.PAIRS, "all"):
        relation, reason = eval_knowledge.decide_pair(row["a"], row["b"], embedder, limits)
        guarded = relation
        if (
            relation == "contradiction"
            and reason.startswith("negation")
            and not same_claim(nlp, row["a"], row["b"], args.adjectives)
        ):
            cosine = float(reason.rsplit("(", 1)[1].rstrip(")"))
            guarded = "paraphrase" if cosine >= limits.paraphrase_cosine else "unrelated"
        rows.append({"batch": row.get("batch", 1), "label": row["label"], "got": relation, "guarded": guarded})
    for group in args.groups.split(","):
        low, _, high = group.partition("-")
        chosen = [r for r in rows if int(low) <= r["batch"] <= int(high or low)]
        print(
            f"batches {group} ({len(chosen)} pairs)\n  judge:      {figures(chosen)}\n  with guard: "
            f"{figures([{**r, 'got': r['guarded']} for r in chosen])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
