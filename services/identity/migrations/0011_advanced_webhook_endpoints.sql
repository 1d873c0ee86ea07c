-- Advanced webhook endpoints of an API key: where its events go, which event types, and the
-- Standard Webhooks signing secret, sealed (AES-GCM under a key derived from the server secret,
-- bound to the endpoint id) because the API hands it back (`endpoints/secret/get`).
CREATE TABLE advanced_webhook_endpoint (
    id text PRIMARY KEY,
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    workspace_id text NOT NULL,
    -- The caller's own name for the endpoint, unique per key; it may stand for the id.
    uid text,
    url text NOT NULL,
    description text,
    -- NULL: every event type (every channel); otherwise a non-empty list.
    filter_types text[],
    channels text[],
    disabled boolean NOT NULL DEFAULT false,
    rate_limit integer,
    metadata jsonb CHECK (metadata IS NULL OR jsonb_typeof(metadata) = 'object'),
    secret_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    seq bigserial UNIQUE,
    UNIQUE (api_key, uid)
);
-- A key's endpoints in the order they were made (the list endpoint's order and cursor).
CREATE INDEX advanced_webhook_endpoint_by_key ON advanced_webhook_endpoint (api_key, seq);
