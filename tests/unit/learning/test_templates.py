"""Template mining: variable tokens become <*>, what identifies a message stays."""

from __future__ import annotations

import random

import pytest

from kgmem.learning.templates import WILDCARD, TemplateMiner, grouping_accuracy, quoted_names, template, tokens


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # numbers, negative numbers, ids glued to words, short and long hex ids
        (
            "PacketResponder 1 for block blk_38865049064139660 terminating",
            "PacketResponder 2 for block blk_-6952295868487656571 terminating",
        ),
        ("mod_jk child init 1 -2", "mod_jk child init 12 -7"),
        (
            "Skipping AppWindowToken{9f4ef63 token=Token{a64f992}}",
            "Skipping AppWindowToken{df0798e token=Token{78af589}}",
        ),
        ("commit 4cfd579e59742aa1d9ff41578899ed28636fa88c missing", "commit 0f1e2d3 missing"),
        # IPs, host:port (dotted or bare host names), host names by TLD, paths, timestamps
        (
            "proxy.cse.cuhk.edu.hk:5070 open through proxy 10.0.0.1:8080 HTTPS",
            "wpad:80 open through proxy socks.example.com:1080 HTTPS",
        ),
        (
            "connection from 62.99.164.82 (62.99.164.82.sh.interxion.inode.at) at Sun Jul  3 23:16:09 2005",
            "connection from 10.1.2.3 (c-24-1-2-3.hsd1.comcast.net) at Mon Jun 20 01:02:03 2005",
        ),
        ("Received block blk_1 of size 67108864 from /10.251.42.84", "Received block blk_2 of size 3 from /10.0.0.9"),
        (
            "open /home/u/a.txt failed at 2024-01-02T03:04:05Z",
            "open C:\\Users\\bob\\b.txt failed at 2025-12-31 23:59:59",
        ),
        # quoted identifiers and values, whatever the quotes
        (
            'FATAL: password authentication failed for user "nfldb"',
            'FATAL: password authentication failed for user "postgres"',
        ),
        ("make: *** No rule to make target 'all'.  Stop.", "make: *** No rule to make target 'setup'.  Stop."),
        ("tag=`View Lock` released", "tag=`AudioMix` released"),
        # an empty value is still a value; a value and its other unit in parentheses are one
        ("connection from 1.2.3.4 () at 10:00:00", "connection from 1.2.3.4 (host.example.com) at 10:00:00"),
        ("close, 0 bytes sent", "close, 1.03 KB (1057 bytes) sent"),
        # counters that happen to be 4xx/5xx numbers are not HTTP statuses
        ("Running task 0.0 in stage 1.0 (TID 402)", "Running task 3.0 in stage 1.0 (TID 17)"),
    ],
)
def test_variable_parts_give_the_same_template(a: str, b: str) -> None:
    assert template(a) == template(b)
    assert WILDCARD in template(a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("[Errno 111] Connection refused", "[Errno 113] Connection refused"),  # errno
        ("OSError: [Errno 28] No space left on device", "OSError: [Errno 24] No space left on device"),
        ("HTTP Error 403: Forbidden", "HTTP Error 404: Forbidden"),  # HTTP status after HTTP words
        ("request returned 429", "request returned 503"),
        ("got 403 Forbidden from the API", "got 401 Unauthorized from the API"),
        ("ERROR 1045 (28000): Access denied", "ERROR 2002 (28000): Access denied"),  # DB error code
        ("process exited with exit status 128", "process exited with exit status 1"),
        ("ValueError: bad input", "TypeError: bad input"),  # exception class
        (
            "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
            "botocore.exceptions.ClientError: Unable to locate credentials",
        ),
        ("session opened for user root", "session closed for user root"),  # words
        ("error: unsupported protocol ssh2", "error: unsupported protocol ssh1"),  # digits glued to words
    ],
)
def test_identity_is_not_generalised(a: str, b: str) -> None:
    assert template(a) != template(b)


def test_quoted_names_can_be_kept() -> None:
    a, b = "ModuleNotFoundError: No module named 'torch'", "ModuleNotFoundError: No module named 'numpy'"
    assert template(a) == template(b) == "ModuleNotFoundError: No module named '<*>'"
    assert template(a, mask_quoted=False) == a
    assert template(a, mask_quoted=False) != template(b, mask_quoted=False)
    # the other rules still apply inside kept quotes
    assert template("open '/tmp/x/a.txt' failed", mask_quoted=False) == "open '<*>' failed"


@pytest.mark.parametrize(
    "line, names",
    [
        ("ModuleNotFoundError: No module named 'distutils.core'", ("distutils.core",)),
        ('FATAL:  database "metadb" does not exist', ("metadb",)),
        ("make: *** No rule to make target `install'.  Stop.", ("install",)),  # GNU quotes are quotes
        ("cannot import name 'url_quote' from 'werkzeug.urls'", ("url_quote", "werkzeug.urls")),
        ("Cannot find package 'express-session' imported from /app/index.js", ("express-session",)),
        # values that vary between reports of one error whatever its cause are no names
        ("open '/tmp/x/a.txt' failed", ()),  # a path
        ("Cannot find module './lib/tokenize'", ()),  # a relative path
        ('could not translate host name "db.example.com" to address', ()),  # a host
        ("The model 'gpt-4' does not exist", ()),  # a number inside: template() masks part of it
        ("Task 'Task-82' was destroyed", ()),  # an id
        ("no such revision 'abc123d'", ()),  # a hash
        ("at '2024-01-01T10:00:00Z'", ()),  # a timestamp
        ("'lodahs@*' is not in this registry.", ()),  # a spec, not a name
        ("the command 'uv venv' failed", ()),  # two words
        ('{"level":"error","msg":"boom"}', ("error", "boom")),  # a JSON key is no value; its values are
        ("No module named distutils", ()),  # unquoted: part of the template
    ],
)
def test_quoted_names(line: str, names: tuple[str, ...]) -> None:
    assert quoted_names(line) == names


def test_json_keys_and_quoted_messages_are_not_values() -> None:
    a = template('{"level":"error","msg":"connection refused by upstream","user":"bob","ts":"2024-01-01T00:00:00Z"}')
    assert a == '{"level":"<*>","msg":"connection refused by upstream","user":"<*>","ts":"<*>"}'
    b = template('{"level":"error","msg":"permission denied for table users","user":"ann","ts":"2025-02-02T01:00:00Z"}')
    assert a != b  # two different errors in the same envelope keep different templates
    assert (
        template('level=warning msg="failed to pull image nginx"') == 'level=warning msg="failed to pull image nginx"'
    )


def test_exact_template() -> None:
    line = (
        '2024-05-01T10:00:00Z ERROR could not connect to db.internal:5432 (10.0.0.5) for user "bob" '
        "from /var/lib/app/run.py after 30s: HTTP Error 503: Service Unavailable, code 1, 4097 tokens"
    )
    assert template(line) == (
        '<*> ERROR could not connect to <*> for user "<*>" from <*> after <*>: '
        "HTTP Error 503: Service Unavailable, code 1, <*> tokens"
    )


def test_stable_idempotent_and_one_line() -> None:
    line = "Error: connect ETIMEDOUT 13.110.0.73:443\n  at TCPConnectWrap.afterConnect (net.js:1141:16)"
    once = template(line)
    assert once == template(line)
    assert template(once) == once
    assert "\n" not in once
    assert tokens(line) == once.split(" ")


def test_blank_line() -> None:
    assert template("   ") == ""


def _corpus(seed: int) -> list[str]:
    rng = random.Random(seed)
    users = ["webmaster", "admin", "test", "oracle", "guest", "chen", "pgadmin"]
    lines = [f"Invalid user {rng.choice(users)} from 173.234.31.{rng.randint(1, 250)}" for _ in range(40)]
    lines += [f"session {rng.choice(['opened', 'closed'])} for user root" for _ in range(40)]
    lines += [f"Connection error [Errno {rng.choice([104, 110, 111, 113, 32])}] retrying" for _ in range(40)]
    lines += [f"acquire lock name={rng.choice(['android', 'audioserver', 'com.android.phone'])} ok" for _ in range(30)]
    lines += [f"ciod: LOGIN chdir({p}) failed" for p in ["/p/gb2/x", "/home/a/b"] * 8 + ["pwd"]]
    rng.shuffle(lines)
    return lines


def test_miner_finds_word_variables_and_keeps_constants() -> None:
    lines = _corpus(1)
    mined = dict(zip(lines, TemplateMiner().fit(lines)))
    # user names: many different words in one column -> a variable
    assert {mined[l] for l in lines if l.startswith("Invalid user")} == {"Invalid user <*> from <*>"}
    # two frequent words in one column are constants: opened and closed stay apart
    assert {mined[l] for l in lines if l.startswith("session")} == {
        "session opened for user root",
        "session closed for user root",
    }
    # error codes are never generalised, however many there are
    assert len({mined[l] for l in lines if l.startswith("Connection error")}) == 5
    # values of one key vary; a rare literal where most lines have a variable is a variable too
    assert {mined[l] for l in lines if l.startswith("acquire")} == {"acquire lock <*> ok"}
    assert {mined[l] for l in lines if l.startswith("ciod")} == {"ciod: LOGIN <*> failed"}


def test_miner_is_deterministic_and_order_independent() -> None:
    lines = _corpus(2)
    first = dict(zip(lines, TemplateMiner().fit(lines)))
    shuffled = list(lines)
    random.Random(3).shuffle(shuffled)
    assert dict(zip(shuffled, TemplateMiner().fit(shuffled))) == first
    assert TemplateMiner().fit([]) == []


def test_min_distinct_decides_when_words_are_variables() -> None:
    lines = [f"removing service {w} now" for w in ("chargen", "daytime", "echo")] * 3
    assert set(TemplateMiner(min_distinct=5).fit(lines)) == {
        "removing service chargen now",
        "removing service daytime now",
        "removing service echo now",
    }
    assert set(TemplateMiner(min_distinct=3).fit(lines)) == {"removing service <*> now"}


def test_grouping_accuracy() -> None:
    truth = ["A", "A", "B", "B", "C"]
    assert grouping_accuracy(truth, [1, 1, 2, 2, 3]) == 1.0
    assert grouping_accuracy(truth, ["x", "x", "y", "z", "w"]) == pytest.approx(3 / 5)  # B split: its 2 lines wrong
    assert grouping_accuracy(truth, [1, 1, 1, 2, 3]) == pytest.approx(1 / 5)  # A and B merged: 4 lines wrong
    assert grouping_accuracy([], []) == 0.0
    with pytest.raises(ValueError, match="truth has 2 labels, predicted 1"):
        grouping_accuracy(["A", "B"], [1])
