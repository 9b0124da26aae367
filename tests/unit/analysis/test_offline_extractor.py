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


@pytest.mark.parametrize(
    "text", ["No, thanks.", "Actually, no.", "It is a nice day.", "Hello there!", "What is the port?", "This is great"]
)
def test_chatter_is_ignored(text):
    assert extract(text) == []


def test_facts_and_triples_with_speaker_names():
    items = extract("My name is Caroline. I live in Berlin. I am a counselor. Redis uses port 6379.", role="Caroline")
    got = {(i.subject, i.predicate, i.object) for i in items}
    assert got == {
        ("Caroline", "name", "Caroline"),
        ("Caroline", "lives in", "Berlin"),
        ("Caroline", "is a", "counselor"),
        ("Redis", "uses", "port 6379"),
    }
    assert all(i.type == "fact" for i in items)
    assert "Caroline lives in Berlin." in {i.content for i in items}


def test_assistant_turns_are_not_mined():
    assert extract("I prefer short answers.", role="assistant") == []


def test_the_extractor_proposes_and_never_claims_a_contradiction():
    # the knowledge store judges (kgmem.analysis.judge): the extractor sees no embeddings
    existing = [
        {
            "content": "The deploy target is production.",
            "subject": "deploy target",
            "predicate": "is",
            "object": "production",
        }
    ]
    (item,) = extract("No, the deploy target is staging.", existing=existing)
    assert item.type == "correction" and item.contradicts is None
    items = extract(
        "Always squash commits.",
        "Never squash commits.",
        "I prefer tabs over spaces!",
        "I prefer using tabs over spaces.",
    )
    assert len(items) == 4 and [i.contradicts for i in items] == [None] * 4


@pytest.mark.parametrize(
    ("text", "content", "triple"),
    [
        (
            "Actually, the staging database listens on port 6543, not 5432.",
            "The staging database listens on port 6543, not 5432.",
            ("staging database", "listens on", "port 6543"),
        ),
        ("No, it's port 9090.", "It's port 9090.", None),
        ("Actually it's Redis 7, not Memcached.", "It's Redis 7, not Memcached.", None),
        ("Nope, it's main, not master.", "It's main, not master.", None),
        ("Not quite: the cron job runs at 2 am.", "The cron job runs at 2 am.", ("cron job", "runs", "at 2 am")),
        ("Actually, we use pnpm, not npm.", "The user's team uses pnpm, not npm.", ("user's team", "uses", "pnpm")),
    ],
)
def test_corrections_with_a_value(text, content, triple):
    (item,) = extract(text)
    assert item.type == "correction" and item.content == content
    assert (None if not item.has_triple else (item.subject, item.predicate, item.object)) == triple


def test_x_not_y_without_a_marker_is_a_correction():
    (item,) = extract("We keep secrets in AWS Secrets Manager, not Vault.")
    assert item.type == "correction" and (item.subject, item.predicate, item.object) == (
        "user's team",
        "keeps",
        "secrets in AWS Secrets Manager",
    )


@pytest.mark.parametrize(
    ("text", "content", "triple"),
    [
        (
            "We keep secrets in HashiCorp Vault.",
            "The user's team keeps secrets in HashiCorp Vault.",
            ("user's team", "keeps", "secrets in HashiCorp Vault"),
        ),
        (
            "My team deploys with Argo CD on Kubernetes.",
            "The user's team deploys with Argo CD on Kubernetes.",
            ("user's team", "deploys", "with Argo CD on Kubernetes"),
        ),
        (
            "I've been using the Goodreads app.",
            "The user has been using the Goodreads app.",
            ("user", "uses", "the Goodreads app"),
        ),
        (
            "I work on the payments team.",
            "The user works on the payments team.",
            ("user", "works on", "the payments team"),
        ),
        (
            "I usually take the bus to work.",
            "The user usually takes the bus to work.",
            ("user", "takes", "the bus to work"),
        ),
    ],
)
def test_first_person_facts(text, content, triple):
    (item,) = extract(text)
    assert item.type == "fact" and (item.subject, item.predicate, item.object) == triple
    assert item.content == content


@pytest.mark.parametrize(
    "text",
    [
        "I like the idea of a personalized doormat.",
        "I love these recommendations!",
        "I like the variety of workouts you've suggested.",
        "Actually, can you explain that again?",
        "Actually, never mind.",
        "I never thought a cheesecake could be vegan!",
        "We started to worry about it.",
        "Actually, I just took my fam camping in the mountains last week - it was a really nice time together!",
    ],
)
def test_reactions_and_chatter_are_not_knowledge(text):
    assert extract(text) == []


def test_deterministic_and_deduplicated():
    texts = ("I prefer tabs. I prefer tabs.", "My name is Bob.")
    first, second = extract(*texts), extract(*texts)
    assert first == second
    assert len(first) == 2


@pytest.mark.parametrize(
    "text",
    [
        "Where is the internship?",
        "Family is everything.",
        "Taking care of ourselves is vital.",
        "Melanie loves it.",
        "Never been to something like that.",
        "Always here to help.",
        "No, never mind that.",
        "Actually, I went to the park yesterday.",
        "Glad your son is okay.",
        "My kids are so excited about summer break.",
    ],
)
def test_chit_chat_filters(text):
    assert extract(text, role="Melanie") == []


def test_objects_are_cut_at_the_clause_break():
    (item,) = extract("I love the yellow leaves, it looks so cozy.", role="Caroline")
    assert item.object == "the yellow leaves" and item.content.startswith("Caroline loves the yellow leaves")


def test_classifications_are_both_kept():
    items = extract("Dance is my passion.", "Dance is my stress relief.", role="Jon")
    assert len(items) == 2 and [i.contradicts for i in items] == [None, None]


def test_explicit_correction_without_a_fact_is_kept():
    (item,) = extract("That's wrong, we agreed to ship on Friday.")
    assert item.type == "correction" and not item.has_triple


@pytest.mark.parametrize(
    ("text", "content", "obj"),
    [
        ("My doctor is Dr. Patel.", "The user's doctor is Dr. Patel.", "Dr. Patel"),
        ("My advisor is Prof. J. Smith. She is great.", "The user's advisor is Prof. J. Smith.", "Prof. J. Smith"),
        ("Our landlord is Mr. Okafor", "The user's team's landlord is Mr. Okafor.", "Mr. Okafor"),
    ],
)
def test_a_title_or_an_initial_does_not_end_the_sentence(text, content, obj):
    item = extract(text)[0]
    assert (item.content, item.object) == (content, obj)


@pytest.mark.parametrize(
    ("text", "content", "obj"),
    [
        ("I take the bus to my office.", "The user takes the bus to their office.", "the bus to their office"),
        ("We keep our secrets in Vault.", "The user's team keeps their secrets in Vault.", "their secrets in Vault"),
        ("I love my dog and my cat", "The user loves their dog and their cat.", "their dog and their cat"),
    ],
)
def test_no_first_person_word_stays_in_the_third_person_rewrite(text, content, obj):
    (item,) = extract(text)
    assert (item.content, item.object) == (content, obj)


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "obj"),
    [
        ("Our API runs on port 8080.", "API", "port", "8080"),
        ("The API server listens on port 9090.", "API server", "listens on", "port 9090"),
        ("I'm on Python 3.11.", "Python", "version", "3.11"),
        ("We're running version 4.2 of the API.", "API", "version", "4.2"),
        ("We're on version 3.2 now.", "user's team", "version", "3.2"),
    ],
)
def test_ports_and_versions_are_extracted(text, subject, predicate, obj):
    (item,) = extract(text)
    assert item.type == "fact"
    assert (item.subject, item.predicate, item.object) == (subject, predicate, obj)


@pytest.mark.parametrize("text", ["In 2019 I moved to Paris.", "I ran 5 miles today.", "Which port is it on?"])
def test_numbers_that_are_no_port_or_version_are_not_values(text):
    assert not [i for i in extract(text) if i.predicate in ("port", "version")]
