"""Two processes write the same errors, fixes, turns and knowledge into one namespace at the same
time: no node is duplicated and every count is exact (deterministic ids + MERGE under the
uniqueness constraints, deadlocks retried)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from reliability_support import REFUSED, TIMEOUT, fingerprint  # type: ignore[import-not-found]

from kgmem.config import Settings

ROUNDS = 40
PROCESSES = 2
# Ten facts no judge relates: the same text from both processes must land on one item. (Facts that differ
# only in a number are another amount of one measure: each would supersede the last, and a value said again
# after it was replaced is a new item of its own; docs/knowledge-over-time.md.)
FACTS = (
    "The staging database lives in the Frankfurt region",
    "Backups are encrypted with a customer managed key",
    "Only the platform team may run schema migrations",
    "The reporting replica lags behind during peak hours",
    "Connection pooling goes through PgBouncer",
    "Slow queries are written to a separate log",
    "The orders table is partitioned by month",
    "Vacuum runs automatically on weekends",
    "Dashboards read from the replica",
    "Service account passwords rotate every quarter",
)


def _writer(settings_json: str, home: str, barrier) -> None:  # noqa: ANN001 - a multiprocessing.Barrier
    from kgmem import KGMem

    settings = Settings.model_validate_json(settings_json)
    (Path(home) / "models").parent.mkdir(parents=True, exist_ok=True)
    (Path(home) / "models").symlink_to(settings.models_dir, target_is_directory=True)  # the ONNX export, once
    settings = settings.model_copy(
        update={
            "home": Path(home),
            "chroma": settings.chroma.model_copy(update={"path": Path(home) / "chroma"}),
            "analysis": settings.analysis.model_copy(update={"enabled": False}),
            "learning": settings.learning.model_copy(update={"strict": True}),
        }
    )  # a lost write must fail loudly
    with KGMem(settings) as mem:
        barrier.wait()
        for i in range(ROUNDS):
            session = f"s{i % 4}"
            error = TIMEOUT.format(t=i) if i % 2 else REFUSED.format(n=i % 5)
            obs = mem.tool_result("http" if i % 2 else "psql", {"attempt": 1}, error=error, session=session)
            if i % 8 == 7:
                mem.resolve(obs, "raise the timeout to 60 s", success=True)
            mem.turn(session="shared", role="user", text=f"the same turn {i}", ref=f"r{i}")
            mem.add_knowledge(FACTS[i % len(FACTS)], type="fact")


def test_two_processes_write_the_same_things_without_duplicates(
    settings: Settings, ns: str, driver, tmp_path: Path
) -> None:
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no driver or model shared by fork
    barrier = ctx.Barrier(PROCESSES)
    blob = settings.model_dump_json()
    procs = [
        ctx.Process(target=_writer, args=(_with_secret(settings, blob), str(tmp_path / f"p{n}"), barrier))
        for n in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=600)
    assert [p.exitcode for p in procs] == [0] * PROCESSES

    got = fingerprint(driver, ns)
    timeouts, refused = ROUNDS // 2, ROUNDS - ROUNDS // 2
    assert got["occurrences"] == {
        "http | " + _pattern(driver, ns, "http"): PROCESSES * timeouts,
        "psql | " + _pattern(driver, ns, "psql"): PROCESSES * refused,
    }
    assert sum(got["in_session"].values()) == PROCESSES * ROUNDS
    assert got["labels"]["ErrorPattern"] == 2 and got["labels"]["Tool"] == 2
    assert got["labels"]["Message"] == ROUNDS and got["session_turns"]["shared"] == ROUNDS
    assert got["labels"]["Knowledge"] == 10
    assert got["labels"]["Session"] == 5  # s0..s3 and "shared"
    assert got["labels"]["Fix"] == 1  # i = 7, 15, 23, 31, 39: all http timeouts, one fix text
    http = _pattern(driver, ns, "http")
    assert got["fixes"] == {f"{http} -> raise the timeout to 60 s": [PROCESSES * (ROUNDS // 8), 0]}
    seqs = sorted(int(k.split("#")[1]) for k in got["messages"])
    assert seqs == list(range(ROUNDS))  # one NEXT chain, no gaps, no duplicate positions


def _pattern(driver, ns: str, tool: str) -> str:  # noqa: ANN001
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns, tool: $tool}) RETURN e.pattern AS p", ns=ns, tool=tool
    )
    [record] = records
    return record["p"]


def _with_secret(settings: Settings, blob: str) -> str:
    # model_dump_json masks SecretStr values: put the password back for the child process.
    import json

    data = json.loads(blob)
    data["neo4j"]["password"] = settings.neo4j.password.get_secret_value() if settings.neo4j.password else None
    data["anthropic"]["api_key"] = None
    return json.dumps(data)
