// name: error_clusters
// description: Clusters of similar errors (connected through SIMILAR_TO at or above a score).
// param: ns str — namespace
// param: min_score float = 0.8 [0..1] — only SIMILAR_TO links at least this similar
// param: min_size int = 2 [1..100000] — smallest cluster to list
// param: limit int = 50 [1..100000] — how many clusters to return
// column: cluster — the cluster's most frequent pattern (its name)
// column: size — error patterns in the cluster
// column: tools — tools involved
// column: occurrences — total occurrences of its patterns
// column: avg_score — mean similarity of its links
// column: patterns — the member patterns, most frequent first
// chart: hbar x=cluster y=occurrences
// Connected components without GDS: each pattern's component key is the smallest id it
// reaches within 3 SIMILAR_TO hops (links below min_score are not followed); patterns
// sharing a key form a cluster.
MATCH (e:ErrorPattern {ns: $ns})
OPTIONAL MATCH (e)(()-[r:SIMILAR_TO WHERE r.score >= $min_score]-()){1,3}(o:ErrorPattern)
WITH e, collect(DISTINCT o.id) + [e.id] AS reach
WITH e, reduce(m = e.id, x IN reach | CASE WHEN x < m THEN x ELSE m END) AS key
WITH key, collect(e) AS members
WHERE size(members) >= $min_size
UNWIND members AS m
OPTIONAL MATCH (m)-[s:SIMILAR_TO]->(n:ErrorPattern) WHERE n IN members AND s.score >= $min_score
WITH key, members, m, collect(s.score) AS scores
ORDER BY m.occurrences DESC
WITH key, collect(m) AS ordered, reduce(acc = [], x IN collect(scores) | acc + x) AS scores
WITH ordered, scores,
     reduce(t = [], x IN ordered | CASE WHEN x.tool IN t THEN t ELSE t + x.tool END) AS tools
RETURN ordered[0].pattern AS cluster, size(ordered) AS size, tools,
       reduce(s = 0, x IN ordered | s + x.occurrences) AS occurrences,
       CASE WHEN size(scores) = 0 THEN null
            ELSE round(reduce(s = 0.0, x IN scores | s + x) / size(scores), 3) END AS avg_score,
       [x IN ordered | x.pattern] AS patterns
ORDER BY occurrences DESC
LIMIT toInteger($limit)
