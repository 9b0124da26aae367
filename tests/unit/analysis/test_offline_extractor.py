"""The offline (no API key) extractor: deterministic rules."""

import pytest

from kgmem.analysis.offline import OfflineExtractor


def extract(*texts, role="user", existing=()):
    return OfflineExtractor().extract([{"role": role, "text": t} for t in texts], existing)


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("I prefer tabs over spaces.", "prefers", "tabs over spaces"),
        ("I really like dark mode", "likes", "dark mode"),
        ("I'd rather use Postgres", "prefers", "use Postgres"),
        ("Always run the tests before pushing.", "always", "run the tests before pushing"),
        ("Please never force-push to main!", "never", "force-push to main"),
        ("Don't ever commit secrets", "never", "commit secrets"),
        ("My favourite editor is Vim.", "favourite editor", "Vim"),
    ],
)
def test_preferences(text, predicate, obj):
    (item,) = extract(text)
    assert item.type == "preference"
    assert (item.subject, item.predicate, item.object) == ("user", predicate, obj)
    assert item.confidence >= 0.7


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("No, the deploy target is staging.", "The deploy target is staging."),
        ("Actually, the API runs on port 9090", "The API runs on port 9090."),
        ("That's wrong: the config file is YAML", "The config file is YAML."),
        ("Correction: the build uses Gradle", "The build uses Gradle."),
    ],
)
def test_corrections(text, content):
    (item,) = extract(text)
    assert item.type == "correction" and item.content == content


@pytest.mark.parametrize("text", ["No, thanks.", "Actually, no.", "It is a nice day.", "Hello there!",
                                  "What is the port?", "This is great"])
def test_chatter_is_ignored(text):
    assert extract(text) == []


def test_facts_and_triples_with_speaker_names():
    items = extract("My name is Caroline. I live in Berlin. I am a counselor. Redis uses port 6379.",
                    role="Caroline")
    got = {(i.subject, i.predicate, i.object) for i in items}
    assert got == {("Caroline", "name", "Caroline"), ("Caroline", "lives in", "Berlin"),
                   ("Caroline", "is a", "counselor"), ("Redis", "uses", "port 6379")}
    assert all(i.type == "fact" for i in items)
    assert "Caroline lives in Berlin." in {i.content for i in items}


def test_assistant_turns_are_not_mined():
    assert extract("I prefer short answers.", role="assistant") == []


def test_contradiction_against_existing_and_within_the_batch():
    existing = [{"content": "The deploy target is production.", "subject": "deploy target", "predicate": "is",
                 "object": "production"}]
    (item,) = extract("No, the deploy target is staging.", existing=existing)
    assert item.contradicts == "The deploy target is production"
    items = extract("Always squash commits.", "Never squash commits.")
    assert items[1].contradicts == "Always squash commits"
    # multi-valued predicates do not contradict
    items = extract("I like tea.", "I like coffee.")
    assert [i.contradicts for i in items] == [None, None]


def test_deterministic_and_deduplicated():
    texts = ("I prefer tabs. I prefer tabs.", "My name is Bob.")
    first, second = extract(*texts), extract(*texts)
    assert first == second
    assert len(first) == 2


@pytest.mark.parametrize("text", [
    "Where is the internship?", "Family is everything.", "Taking care of ourselves is vital.",
    "Melanie loves it.", "Never been to something like that.", "Always here to help.",
    "No, never mind that.", "Actually, I went to the park yesterday.", "Glad your son is okay.",
    "My kids are so excited about summer break.",
])
def test_chit_chat_filters(text):
    assert extract(text, role="Melanie") == []


def test_objects_are_cut_at_the_clause_break():
    (item,) = extract("I love the yellow leaves, it looks so cozy.", role="Caroline")
    assert item.object == "the yellow leaves" and item.content.startswith("Caroline loves the yellow leaves")


def test_classifications_do_not_contradict():
    items = extract("Dance is my passion.", "Dance is my stress relief.", role="Jon")
    assert len(items) == 2 and [i.contradicts for i in items] == [None, None]


def test_explicit_correction_without_a_fact_is_kept():
    (item,) = extract("That's wrong, we agreed to ship on Friday.")
    assert item.type == "correction" and not item.has_triple
