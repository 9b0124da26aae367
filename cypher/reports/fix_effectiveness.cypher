// name: fix_effectiveness
// description: How well each fix works: success rate, confidence, share of errors where it auto-applies.
// param: ns str — namespace
// param: threshold float = 0.7 [0..1] — auto-apply threshold
// param: limit int = 50 [1..100000] — how many fixes to return
// column: fix — fix description
// column: source — observed / user / analyzer
// column: errors — error patterns it resolves
// column: successes — recorded successes (all patterns)
// column: failures — recorded failures (all patterns)
// column: success_rate — successes / (successes + failures), null when never tried
// column: posterior — Beta posterior mean alpha / (alpha + beta) over its edges
// column: avg_confidence — mean RESOLVED_BY confidence
// column: max_confidence — best RESOLVED_BY confidence
// column: auto_apply_share — share of its edges at or above the threshold
// chart: hbar x=fix y=success_rate,auto_apply_share
MATCH (f:Fix {ns: $ns})<-[r:RESOLVED_BY]-(e:ErrorPattern)
WITH f, count(r) AS errors,
     sum(coalesce(r.successes, 0)) AS successes, sum(coalesce(r.failures, 0)) AS failures,
     sum(coalesce(r.alpha, 1.0)) AS alpha, sum(coalesce(r.beta, 1.0)) AS beta,
     avg(r.confidence) AS avg_confidence, max(r.confidence) AS max_confidence,
     sum(CASE WHEN r.confidence >= $threshold THEN 1 ELSE 0 END) AS auto_edges
RETURN f.description AS fix, f.source AS source, errors, successes, failures,
       CASE WHEN successes + failures = 0 THEN null
            ELSE round(toFloat(successes) / (successes + failures), 3) END AS success_rate,
       round(alpha / (alpha + beta), 3) AS posterior,
       round(avg_confidence, 3) AS avg_confidence, round(max_confidence, 3) AS max_confidence,
       round(toFloat(auto_edges) / errors, 3) AS auto_apply_share
ORDER BY max_confidence DESC, errors DESC
LIMIT toInteger($limit)
