// The audit trail's key (kgmem.forget.service applies it with ensure_schema). Params: none.
CREATE CONSTRAINT kgmem_forget_key IF NOT EXISTS FOR (n:KgmemForget) REQUIRE n.id IS UNIQUE
