"""Alias resolution within one batch of memories (a conversation's turns, one analysis window).

A short first name resolves to the one longer name of the batch it abbreviates: ``"mel"`` ->
``"melanie"`` (a prefix of at least three letters of a single-word name at least two letters
longer), ``"caroline"`` -> ``"caroline smith"`` (the first word of one multi-word name). The
speakers of the batch count as names too, so ``"Mel"`` in a turn resolves to the speaker
``Melanie`` even in a batch where no turn writes her full name; when a short name fits several
names and exactly one of them is a speaker, the speaker wins. Otherwise an ambiguous short name
is left as it is. Pure logic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgmem.concepts.normalise import normalise_key
from kgmem.concepts.types import ENTITY, ConceptMention

MIN_PREFIX = 3
MIN_EXTRA = 2  # "mel" -> "melanie", but not "mel" -> "mell" (a typo, not a longer name)


def alias_map(keys: Iterable[str], preferred: Iterable[str] = ()) -> dict[str, str]:
    """For each short name key among ``keys``, the one full name key it stands for.

    ``preferred`` (speaker keys) settles a short name that fits several names.
    """
    names = sorted(set(k for k in keys if k))
    favoured = set(preferred)
    out: dict[str, str] = {}
    for short in names:
        if " " in short:
            continue
        targets = set()
        for full in names:
            if full == short:
                continue
            first = full.split(" ", 1)[0]
            if " " in full and first == short:
                targets.add(full)
            elif (
                " " not in full
                and len(short) >= MIN_PREFIX
                and len(full) >= len(short) + MIN_EXTRA
                and full.startswith(short)
            ):
                targets.add(full)
        if len(targets) > 1 and len(targets & favoured) == 1:
            targets &= favoured
        if len(targets) == 1:
            out[short] = targets.pop()
    # A target that is itself an alias (mel -> melanie -> melanie smith) resolves to the end.
    for short, full in list(out.items()):
        seen = {short}
        while full in out and full not in seen:
            seen.add(full)
            full = out[full]
        out[short] = full
    return out


def resolve_aliases(
    mentions: Sequence[Sequence[ConceptMention]], names: Iterable[str] = ()
) -> list[list[ConceptMention]]:
    """``mentions`` (one list per memory of the batch) with short names replaced by the full name.

    Args:
        mentions: the extractor's output for each memory of the batch.
        names: other names known to the batch (the speakers of conversation turns).
    """
    entity_names: dict[str, str] = {}
    for group in mentions:
        for m in group:
            if m.kind == ENTITY:
                entity_names.setdefault(m.key, m.name)
    speakers = set()
    for name in names:
        key = normalise_key(name)
        if key:
            entity_names.setdefault(key, name.strip())
            speakers.add(key)
    mapping = alias_map(entity_names, speakers)
    if not mapping:
        return [list(g) for g in mentions]
    out = []
    for group in mentions:
        seen: dict[str, ConceptMention] = {}
        for m in group:
            if m.kind == ENTITY and m.key in mapping:
                full = mapping[m.key]
                m = ConceptMention(full, entity_names[full], ENTITY)
            if m.key not in seen:
                seen[m.key] = m
        out.append(list(seen.values()))
    return out
