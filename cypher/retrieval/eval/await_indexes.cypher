// Wait until every index is online (after creating or filling one). No params.
CALL db.awaitIndexes(300)
