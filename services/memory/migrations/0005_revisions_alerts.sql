-- Knowledge revisions, memory alerts and their per-key settings.

-- A source's content revision: 1 as ingested, one more for each /knowledge/update. Its vectors
-- carry the revision (from 2 on) and its Markdown rendering lives under a key naming it, so an
-- update writes the new content beside the old and switches over when this row changes.
ALTER TABLE source ADD COLUMN version integer NOT NULL DEFAULT 1;

-- Alerts: trends in a key's judgments worth a look, raised by memory's periodic check. One
-- active alert per trend (`dedup_key`) at a time; dismissing or actioning one ends it.
CREATE TABLE alert (
    api_key text NOT NULL,
    alert_id text NOT NULL,
    workspace_id text NOT NULL,
    alert_type text NOT NULL,
    severity text NOT NULL CHECK (severity IN ('high', 'medium', 'low')),
    title text NOT NULL,
    description text NOT NULL,
    evidence jsonb NOT NULL,
    suggested_action text,
    action_url text,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'dismissed', 'actioned')),
    dedup_key text NOT NULL,
    -- ms since the epoch
    created_at bigint NOT NULL,
    dismissed_at bigint,
    dismissed_by text,
    actioned_at bigint,
    PRIMARY KEY (api_key, alert_id)
);

CREATE INDEX alert_active ON alert (api_key, created_at DESC) WHERE status = 'active';
CREATE UNIQUE INDEX alert_one_active_per_trend ON alert (api_key, dedup_key)
    WHERE status = 'active';

-- Alert settings of a key, stored and returned as sent (merged key by key).
CREATE TABLE alert_config (
    api_key text PRIMARY KEY,
    config jsonb NOT NULL,
    updated_at bigint NOT NULL
);

-- Reviewer profiles and the alert check read a key's judgments by reviewer.
CREATE INDEX judgment_by_reviewer ON judgment (api_key, reviewer_id, created_at)
    WHERE reviewer_id IS NOT NULL;
