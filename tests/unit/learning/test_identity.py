"""Proven identity of two linked errors (kgmem/learning/identity.py): what lets a borrowed fix act."""

from __future__ import annotations

import pytest

from kgmem.learning.identity import fix_proves_identity, link_proof, same_error
from kgmem.learning.matching import ErrorText
from kgmem.learning.plan import describe_error
from kgmem.learning.similarity import decode_keys


def _text(message: str) -> ErrorText:
    info = describe_error("t", "tool", message)
    return ErrorText(info.template, decode_keys(info.keys))


def _both_ways(a: ErrorText, b: ErrorText) -> bool:
    # a SIMILAR_TO link is undirected: the rule must give one answer whichever side lends the fix
    assert same_error(a, b) == same_error(b, a)
    return same_error(a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        # values and the wrappers the core leaves out differ
        (
            'FATAL:  Peer authentication failed for user "app"',
            'db_1 | FATAL:  Peer authentication failed for user "app"',
        ),
        ("npm ERR! 404  'lodahs@*' is not in this registry.", "npm ERR! 404  'reqeust@*' is not in this registry."),
        (
            "PermissionError: [Errno 13] Permission denied: '/var/log/a.log'",
            "PermissionError: [Errno 13] Permission denied: '/srv/b.log'",
        ),  # a path is a value, not the subject
        (
            "ModuleNotFoundError: No module named 'distutils'",
            'Traceback (most recent call last):\n  File "setup.py", line 1, in <module>\n    import distutils\n'
            "ModuleNotFoundError: No module named 'distutils'",
        ),
    ],
)
def test_the_same_template_and_keys_are_proven(a: str, b: str) -> None:
    assert _both_ways(_text(a), _text(b))


@pytest.mark.parametrize(
    "a, b",
    [
        # letter case and punctuation: measured, and not proof on unseen data
        ("Host key verification failed.", "fatal: host key verification failed"),
        # a statement wrapped by another layer: what the layer prints first can be the cause
        (
            'FATAL:  Peer authentication failed for user "x"',
            'psql: error: connection to server at "db" (10.0.0.1), port 5432 failed: FATAL:  Peer authentication failed '
            'for user "postgres"',
        ),
        # a tail after the statement is another detail of the error
        (
            "Cannot use import statement outside a module",
            "Cannot use import statement outside a module (at main.js:1:1)",
        ),
        # another line is another diagnosis
        (
            "npm ERR! 404 Not Found - GET https://registry.npmjs.org/lodahs - Not found\n"
            "npm ERR! 404  'lodahs@*' is not in the npm registry.",
            "npm ERR! 404 Not Found - GET https://registry.npmjs.org/lodahs - Not found\n"
            "npm ERR! 404  'lodahs@*' is not in the npm registry.\nnpm ERR! 404 It was specified as a dependency of 'app'",
        ),
        # a key on one side only: the other may have raised a generic class, or dropped another status
        ("botocore.exceptions.NoCredentialsError: Unable to locate credentials", "Unable to locate credentials"),
        (
            "You exceeded your current quota, please check your plan and billing details.",
            "Error code: 429 - You exceeded your current quota, please check your plan and billing details.",
        ),
        # keys of one kind on both sides must be equal
        ("[Errno 13] Permission denied", "[Errno 1] Permission denied"),
        # variables only: nothing proven
        ("12345", "67890"),
        # the same statement about another name: the name is what the fix is about
        ("ModuleNotFoundError: No module named 'distutils'", "ModuleNotFoundError: No module named 'distutils.core'"),
        ('FATAL:  database "metadb" does not exist', 'FATAL:  database "dave" does not exist'),
        (
            'FATAL:  Peer authentication failed for user "x"',
            'db_1 | FATAL:  Peer authentication failed for user "postgres"',
        ),
    ],
)
def test_what_the_text_does_not_prove_stays_a_suggestion(a: str, b: str) -> None:
    assert not _both_ways(_text(a), _text(b))


@pytest.mark.parametrize(
    "text, confirmed, contradicted, proof",
    [
        (True, 0, 0, "text"),
        (False, 1, 0, "outcome"),  # a fix the link lent worked on the borrowing error
        (True, 2, 0, "text"),  # the text proof is named first
        (False, 0, 0, None),  # a look-alike link: suggest only
        (True, 0, 1, None),  # a lent fix failed here: refuted, whatever the text says ...
        (False, 3, 1, None),  # ... and whatever later outcomes say
    ],
)
def test_link_proof(text: bool, confirmed: int, contradicted: int, proof: str | None) -> None:
    assert link_proof(text, confirmed, contradicted) == proof


@pytest.mark.parametrize(
    "description, proves",
    [
        ("Use the pgbouncer port 6432", True),
        ("psql: set port=6432 (was 5432)", True),
        ("psql: retry with the same parameters", False),  # every transient error takes it: no proof of one error
        ("Retry with the same parameters", False),
        ("", False),
    ],
)
def test_a_plain_retry_proves_nothing(description: str, proves: bool) -> None:
    assert fix_proves_identity(description) is proves
