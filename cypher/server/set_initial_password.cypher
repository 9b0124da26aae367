// Replace the default password of a fresh server (run against the `system` database). Params: old, new.
ALTER CURRENT USER SET PASSWORD FROM $old TO $new
