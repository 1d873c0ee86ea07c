-- Patterns: groups of judgments of one key, organization and content type that lie close in
-- the `review` space. Each judgment joins the group whose centroid is nearest (above a
-- threshold) when it is recorded, in the same transaction, or starts a group of its own; a
-- group with a clear majority decision is reported as a pattern.

CREATE TABLE pattern (
    api_key text NOT NULL,
    pattern_id text NOT NULL,
    workspace_id text NOT NULL,
    organization_id text,
    content_type text,
    -- The normalised mean of the members' review vectors.
    centroid real[] NOT NULL,
    size integer NOT NULL,
    -- decision -> members that decided so
    decisions jsonb NOT NULL,
    reviewers text[] NOT NULL,
    -- The newest members first, a few.
    record_ids text[] NOT NULL,
    -- The reasoning of the member closest to the centroid when it joined.
    representative text NOT NULL,
    discovered_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (api_key, pattern_id)
);

CREATE INDEX pattern_group ON pattern (api_key, organization_id, content_type);
CREATE INDEX pattern_recent ON pattern (api_key, updated_at DESC);
