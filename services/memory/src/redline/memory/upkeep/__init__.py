"""The hosted product's operator calls, as a self-hosted install answers them:
/v2/memory/consolidation/trigger, /consolidation/seed-active-api-keys, /backfill/judgments."""
