// name: retrieval_usage
// description: Most-used retrieval hits and their feedback balance (Beta posteriors).
// param: ns str — namespace
// param: limit int = 50 [1..100000] — how many items to return
// column: kind — node label
// column: text — what was retrieved
// column: feedback_events — times it was retrieved and judged (feedback_count: used or not)
// column: alpha — positive evidence (posterior alpha)
// column: beta — negative evidence (posterior beta)
// column: posterior — alpha / (alpha + beta)
// column: balance — alpha - beta (above 0: helped more than it hurt)
// column: last_used — last positive feedback
// chart: hbar x=text y=feedback_events
// Posteriors start at alpha = beta = 1 (no evidence); items never used or judged are left out.
MATCH (n {ns: $ns})
WHERE (n:ErrorPattern OR n:Fix OR n:Knowledge OR n:Message OR n:Entity)
  AND (coalesce(n.feedback_count, 0) > 0 OR n.alpha IS NOT NULL OR n.beta IS NOT NULL)
WITH n, coalesce(n.alpha, 1.0) AS alpha, coalesce(n.beta, 1.0) AS beta
RETURN head(labels(n)) AS kind,
       left(coalesce(n.content, n.pattern, n.description, n.text, n.name, n.id), 200) AS text,
       coalesce(n.feedback_count, 0) AS feedback_events, alpha, beta,
       round(alpha / (alpha + beta), 3) AS posterior, round(alpha - beta, 3) AS balance,
       n.last_used AS last_used
ORDER BY feedback_events DESC, posterior DESC
LIMIT toInteger($limit)
