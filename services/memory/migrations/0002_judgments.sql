-- Judgments: review decisions recorded from domain events (never written by callers). The
-- record id is derived from the event id, so a redelivered event records nothing new. Their
-- vectors (the `review` and `content` spaces) live in Qdrant under the same ids.

CREATE TABLE judgment (
    api_key text NOT NULL,
    record_id text NOT NULL,
    workspace_id text NOT NULL,
    organization_id text,
    document_id text,
    annotation_id text,
    decision text NOT NULL,
    reasoning text NOT NULL,
    confidence real NOT NULL,
    judge_type text NOT NULL CHECK (judge_type IN ('human', 'agent')),
    content_type text,
    reviewer_id text,
    action_user jsonb,
    agent jsonb,
    content text NOT NULL,
    -- The event it was recorded from (`comments.comment_annotation.suggestion_reject`, …).
    source_event text NOT NULL,
    -- ms since the epoch
    created_at bigint NOT NULL,
    PRIMARY KEY (api_key, record_id)
);

CREATE INDEX judgment_recent ON judgment (api_key, created_at DESC);
CREATE INDEX judgment_by_document ON judgment (api_key, organization_id, document_id, created_at);
CREATE INDEX judgment_by_annotation
    ON judgment (api_key, organization_id, annotation_id, created_at);
