// name: Namespaces
// description: Every namespace in the database with its node count (set $ns to one of them).
MATCH (n)
WHERE n.ns IS NOT NULL
RETURN n.ns AS ns, count(n) AS nodes
ORDER BY nodes DESC
