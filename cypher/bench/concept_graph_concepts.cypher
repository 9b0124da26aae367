// benchmarks/concept_reports.py: the synthetic namespace's concepts with their document
// frequency. Params: ns, ns_key, rows: [{id, key, name, kind, df}].
UNWIND $rows AS row
CREATE (:Concept {ns: $ns, id: row.id, key: row.key, name: row.name, kind: row.kind, df: row.df, ns_key: $ns_key})
RETURN count(*) AS concepts
