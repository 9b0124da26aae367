"""Matching score: template equality, lexical signals, the identity guard, the logistic fit; and
the fixed corpus split it is calibrated on."""

from __future__ import annotations

import math

import pytest
from benchmarks.error_corpus import CorpusRow, load_corpus, split_corpus, split_of

from kgmem.learning.matching import (
    DEFAULT_MODEL,
    ErrorText,
    MatchModel,
    features,
    fit_logistic,
    match_score,
    near_twins,
)
from kgmem.learning.plan import describe_error
from kgmem.learning.similarity import decode_keys


def _text(message: str) -> ErrorText:
    info = describe_error("t", "tool", message)
    return ErrorText(info.template, decode_keys(info.keys))


def test_same_template_after_wrappers_is_a_match() -> None:
    a = _text('FATAL:  password authentication failed for user "nfldb"')
    b = _text('db_1  | FATAL:  password authentication failed for user "postgres"')
    assert a.template == b.template
    assert match_score(a, b, cosine=0.2) == 1.0  # whatever the embedding says


def test_identity_guard_blocks_different_codes_and_classes() -> None:
    refused = _text("OSError: [Errno 111] Connection refused")
    unreachable = _text("OSError: [Errno 113] No route to host")
    assert match_score(refused, unreachable, cosine=1.0) is None
    read = _text("botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL")
    connect = _text("botocore.exceptions.ConnectTimeoutError: Read timeout on endpoint URL")
    assert match_score(read, connect, cosine=1.0) is None
    assert match_score(_text("HTTP Error 403: Forbidden"), _text("HTTP Error 404: Forbidden"), 1.0) is None


def test_strerror_text_is_an_errno_key() -> None:
    unreachable = _text("ssh: connect to host github.com port 22: Network is unreachable")
    timed_out = _text("ssh: connect to host github.com port 22: Operation timed out")
    assert match_score(unreachable, timed_out, cosine=1.0) is None
    numbered = _text("[Errno 110] Connection timed out")
    assert match_score(timed_out, numbered, cosine=0.9) is not None  # same errno, two spellings


def test_vendor_codes_and_scheduler_resources_are_keys() -> None:
    assert (
        match_score(
            _text("error TS2307: Cannot find module 'x' or its corresponding type declarations."),
            _text("error TS7016: Cannot find module 'x' or its corresponding type declarations."),
            1.0,
        )
        is None
    )
    assert (
        match_score(
            _text("AADSTS700016: Application with identifier 'x' was not found"),
            _text("AADSTS50011: Application with identifier 'x' was not found"),
            1.0,
        )
        is None
    )
    assert match_score(_text("npm ERR! code E404"), _text("npm ERR! code ERESOLVE"), 1.0) is None
    assert (
        match_score(
            _text("0/5 nodes are available: 3 Insufficient pods."),
            _text("0/1 nodes are available: 1 insufficient cpu."),
            1.0,
        )
        is None
    )
    # klog's level+date prefix (E0418 12:01:02) is not a vendor code: two dates do not conflict
    assert "code" not in _text("E0418 12:01:02.123456 1 reflector.go:205] Failed to list *v1.Pod").keys
    assert _text("E11000 duplicate key error collection: app.users").keys["code"] == frozenset({"E11000"})


def test_near_twins_are_never_linked() -> None:
    zero = _text("Error: timeout of 0ms exceeded")
    slow = _text("Error: timeout of 5000ms exceeded")
    assert zero.template != slow.template
    assert near_twins(zero, slow) and match_score(zero, slow, cosine=1.0) is None
    role = _text('psql: FATAL:  role "alice" does not exist')
    db = _text('psql: FATAL:  database "alice" does not exist')
    assert near_twins(role, db) and match_score(role, db, cosine=1.0) is None
    prereq = _text("make: *** No rule to make target `main.c', needed by `hello'. Stop.")
    target = _text("make: *** No rule to make target 'install'. Stop.")
    assert near_twins(prereq, target)
    # a swapped level word or a wrapper around the message is not a twin
    assert not near_twins(
        _text("(error) NOAUTH Authentication required."), _text("[ErrorReply: NOAUTH Authentication required.]")
    )
    assert not near_twins(
        _text("INSTALLATION FAILED: timed out waiting for the condition"), _text("timed out waiting for the condition")
    )


def test_gnu_quotes_are_quotes() -> None:
    assert (
        _text("make: *** No rule to make target `install'. Stop.").template
        == _text("make: *** No rule to make target 'setup'. Stop.").template
    )


def test_features_are_bounded_and_symmetric_where_they_should_be() -> None:
    a = _text("INSTALLATION FAILED: timed out waiting for the condition")
    b = _text("timed out waiting for the condition")
    f, g = features(a, b, 0.9), features(b, a, 0.9)
    assert f == g
    assert all(0.0 <= x <= 1.0 for x in f.vector())
    assert f.token_containment == 1.0 and f.template_equal == 0.0 and f.clause_equal == 1.0


def test_a_substituted_key_word_scores_lower_than_an_added_wrapper() -> None:
    base = _text('psql: FATAL:  database "metadb" does not exist')
    wrapped = _text(
        'psql: error: connection to server on socket "/tmp/.s.PGSQL.5432" failed: '
        'FATAL:  database "postgres" does not exist'
    )
    twin = _text('psql: FATAL:  role "metadb" does not exist')
    assert features(base, twin, 0.5).no_substitution < features(base, wrapped, 0.5).no_substitution
    assert (match_score(base, wrapped, 0.8) or 0) > (match_score(base, twin, 0.8) or 0)


def test_default_model_decides_with_its_threshold() -> None:
    low = MatchModel(bias=-100.0, weights=DEFAULT_MODEL.weights, threshold=0.5)
    a, b = _text("socket hang up"), _text("Error: socket hang up (ECONNRESET)")
    assert match_score(a, b, 0.9, low) < low.threshold  # a model can say no to non-identical templates


def test_fit_logistic_separates_a_separable_set() -> None:
    x = [(0.0, 0.1), (0.1, 0.0), (0.2, 0.1), (0.9, 1.0), (1.0, 0.8), (0.8, 0.9)]
    y = [0, 0, 0, 1, 1, 1]
    bias, w = fit_logistic(x, y)
    assert all(v > 0 for v in w)
    p = [1 / (1 + math.exp(-(bias + w[0] * a + w[1] * b))) for a, b in x]
    assert max(p[:3]) < 0.5 < min(p[3:])
    with pytest.raises(ValueError):
        fit_logistic([(0.0,)], [1])


def test_split_is_by_hash_of_group_and_negatives_follow_their_group() -> None:
    assert split_of("py_errno13") in ("train", "test")
    assert split_of("x") == split_of("x")
    neg = CorpusRow("n", "role_not_exist", "general", "t", "s", confusable_with="pg_db_not_exist")
    var = CorpusRow("v", "pg_db_not_exist", "general", "t", "s")
    assert neg.split == var.split == split_of("pg_db_not_exist")


def test_corpus_halves_are_disjoint_and_cover_everything() -> None:
    rows = load_corpus()
    train, test = split_corpus(rows, "train"), split_corpus(rows, "test")
    assert len(train) + len(test) == len(rows)
    assert not {r.group for r in train if r.kind == "v"} & {r.group for r in test if r.kind == "v"}
    assert len(train) > 50 and len(test) > 50


def test_a_zero_timeout_is_another_pattern() -> None:
    zero = describe_error("t", "tool", "Error: timeout of 0ms exceeded")
    slow = describe_error("t", "tool", "Error: timeout of 120000ms exceeded")
    assert zero.id != slow.id and "0ms" in zero.pattern
    assert describe_error("t", "tool", "Error: timeout of 5000ms exceeded").id == slow.id


def test_a_system_port_is_an_identity_key() -> None:
    ssh = _text("ssh: connect to host example.org port 22: Operation timed out")
    https = _text(
        "fatal: unable to access 'https://example.org/a.git/': Failed to connect to example.org port 443: "
        "Operation timed out"
    )
    assert ssh.keys["port"] == frozenset({"22"}) and https.keys["port"] == frozenset({"443"})
    assert match_score(ssh, https, cosine=1.0) is None
    # an application's own port (≥ 1024) is a value, not the protocol
    assert "port" not in _text("curl: (7) Failed to connect to localhost port 8080: Connection refused").keys


def test_other_command_options_and_other_root_causes_are_twins() -> None:
    staged = _text("ERROR [stage-1 3/4] COPY --from=build /out/app.bin /app")
    plain = _text("ERROR [3/4] COPY app.bin /app")
    assert near_twins(staged, plain) and near_twins(plain, staged)
    # an option only in a hint line of one side ("git config --global …") is no command of the other
    assert not near_twins(
        _text(
            "fatal: detected dubious ownership in repository at '/src'\n"
            "To add an exception, call: git config --global --add safe.directory /src"
        ),
        _text("detected dubious ownership in repository at '/work'"),
    )
    refused = _text("deploy failed: could not fetch artifact: upstream answered with an invalid checksum")
    missing = _text("deploy failed: could not fetch artifact: file missing on mirror")
    assert near_twins(refused, missing)
    # a chain that ends in a name, not a cause, is the same error
    assert not near_twins(
        _text("Unable to resolve actions. Repository not found: octo/tool-one."),
        _text("Unable to resolve actions. Repository not found: octo/other-thing."),
    )


def test_line_alignment_features_are_asymmetric() -> None:
    new = _text(
        'initdb: directory "/data" exists but is not empty\n'
        "Using a mount point directly as the data directory is not recommended."
    )
    known = _text('initdb: directory "/data" exists but is not empty')
    f, g = features(new, known, 0.9), features(known, new, 0.9)
    assert f.novel_lines == g.missing_lines == 0.5 and f.missing_lines == g.novel_lines == 0.0


def test_a_dotted_python_class_is_the_exception_key() -> None:
    read = _text("httpx.ReadTimeout: The read operation timed out")
    connect = _text("httpx.ConnectTimeout")
    assert read.keys["exc"] == frozenset({"ReadTimeout"}) and connect.keys["exc"] == frozenset({"ConnectTimeout"})
    assert match_score(read, connect, cosine=1.0) is None


def test_same_class_with_another_detail_is_a_twin() -> None:
    heap = _text("Exception in thread main java.lang.OutOfMemoryError: Java heap space")
    meta = _text("[worker-3] java.lang.OutOfMemoryError: Metaspace")
    assert near_twins(meta, heap)
    again = _text("## java.lang.OutOfMemoryError: Java heap space\nRequestURI=/api/items")
    assert not near_twins(again, heap)


def test_a_root_cause_ending_in_a_value_still_counts() -> None:
    policy = _text(
        "An error occurred (AccessDenied) when calling the GetObject operation: user arn:aws:iam::1:user/x "
        "is not allowed because no policy grants s3:GetObject"
    )
    model = _text(
        "An error occurred (AccessDenied) when calling the GetObject operation: You don't have access to this bucket"
    )
    assert near_twins(policy, model)


def test_shell_exit_statuses_and_signals_are_keys() -> None:
    killed = _text("Process finished with exit code 137")
    assert killed.keys["exit"] == frozenset({"SIGKILL"})
    assert match_score(killed, _text("Process finished with exit code 139"), cosine=1.0) is None
    assert match_score(killed, _text("worker died with <Signals.SIGKILL: 9>"), cosine=0.9) is not None
    # a program's own status (1-125) varies between runs of one error: no key
    assert "exit" not in _text("error: command 'gcc' failed with exit status 1").keys


def test_a_value_label_inserted_inside_is_no_twin() -> None:
    # "IP:" before a value adds no meaning; "needed by 'y'" (test_near_twins_are_never_linked) does
    assert not near_twins(
        _text("Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout"),
        _text("Unable to connect to the server: dial tcp IP:6443: i/o timeout"),
    )


def test_chain_tail_feature_sees_a_prefixed_step() -> None:
    from kgmem.learning.matching import ErrorText, features

    a = ErrorText("Internal watch failed: ENOSPC: System limit for number of file watchers reached", {})
    b = ErrorText("ENOSPC: System limit for number of file watchers reached", {})
    c = ErrorText("ENOSPC: no space left on device", {})
    assert features(a, b, 0.8).chain_tail == 1.0
    assert features(a, c, 0.8).chain_tail == 0.0


def _write(path, rows) -> None:
    import json

    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def test_routed_files_put_every_row_in_their_half(tmp_path) -> None:
    from benchmarks.error_corpus import corpus_files

    row = {"kind": "v", "category": "general", "text": "t", "source": "https://x"}
    _write(tmp_path / "errors_corpus.jsonl", [{**row, "group": "base"}])
    _write(
        tmp_path / "errors_corpus_train_1.jsonl",
        [{**row, "group": "tr"}, {**row, "group": "tr"}, {**row, "kind": "n", "group": "trn", "confusable_with": "tr"}],
    )
    _write(tmp_path / "errors_corpus_test_1.jsonl", [{**row, "group": "te"}])
    rows = load_corpus(corpus_files(tmp_path))
    assert [r.file for r in rows][-1] == "errors_corpus_test_1.jsonl"
    assert {r.group for r in split_corpus(rows, "train")} >= {"tr", "trn"}
    assert "te" in {r.group for r in split_corpus(rows, "test")}
    assert next(r for r in rows if r.group == "base").split == split_of("base")


def test_a_group_split_across_halves_or_a_negative_imitating_the_other_half_is_refused(tmp_path) -> None:
    from benchmarks.error_corpus import CorpusError, corpus_files

    row = {"kind": "v", "category": "general", "text": "t", "source": "https://x"}
    _write(tmp_path / "errors_corpus_train_1.jsonl", [{**row, "group": "g"}])
    _write(tmp_path / "errors_corpus_test_1.jsonl", [{**row, "group": "g"}])
    with pytest.raises(CorpusError, match="group 'g'"):
        load_corpus(corpus_files(tmp_path))
    _write(tmp_path / "errors_corpus_test_1.jsonl", [{**row, "kind": "n", "group": "twin", "confusable_with": "g"}])
    with pytest.raises(CorpusError, match="imitates 'g'"):
        load_corpus(corpus_files(tmp_path))


def test_words_standing_for_a_variable_are_its_value_not_a_twin() -> None:
    # aligned against a wildcard or a placeholder a tool printed (<ROOT>), a word is the value
    assert not near_twins(
        ErrorText("COPY failed: stat files-to-copy/: file does not exist", {}),
        ErrorText("COPY failed: stat <*>: file does not exist", {}),
    )
    assert not near_twins(
        ErrorText("pnpm-lock.yaml is not up to date with package.json", {}),
        ErrorText("pnpm-lock.yaml is not up to date with <ROOT>/package.json", {}),
    )
    assert not near_twins(
        ErrorText("failed to push some refs to 'https://<*>", {}), ErrorText("failed to push some refs to '<*>'", {})
    )
    # words inserted between words on both sides still make another error
    assert near_twins(
        ErrorText("COPY failed: stat <*>: config file does not exist", {}),
        ErrorText("COPY failed: stat <*>: file does not exist", {}),
    )
    assert near_twins(
        ErrorText("password authentication failed for user <*>", {}),
        ErrorText("Peer authentication failed for user <*>", {}),
    )
