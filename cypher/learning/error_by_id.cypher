// One error pattern by id. Params: ns, id.
MATCH (e:ErrorPattern {ns: $ns, id: $id})
RETURN e.id AS id, e.tool AS tool, e.pattern AS pattern, e.category AS category,
       e.signature AS signature, e.keys AS keys, e.template AS template
