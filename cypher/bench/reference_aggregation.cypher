// benchmarks/concept_reports.py: a yardstick for the machine's speed at the time of the run —
// the shape of co-occurrence counting (rows grouped into pairs) without touching the graph.
// Params: rows, groups.
UNWIND range(1, $rows) AS i
WITH i % $groups AS pair, count(*) AS together
RETURN count(*) AS pairs, sum(together) AS rows
