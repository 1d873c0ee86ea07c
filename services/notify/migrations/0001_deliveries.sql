-- Webhook deliveries: one row per (event, receiver URL) with the state that workers on every
-- replica share, and the body exactly as it is sent. PostgreSQL is the source of truth; the stream
-- only brought the event.

CREATE TABLE delivery (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Sent as `webhook-id` (and inside the payload), the same on every retry; unique, so that a
    -- redelivered event enqueues nothing twice.
    webhook_id text NOT NULL UNIQUE,
    workspace_id text NOT NULL,
    api_key text NOT NULL,
    -- basic (per-API-key webhooks) or workflow (per-execution receivers).
    kind text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    -- raw or processed for basic webhooks.
    target text NOT NULL,
    url text COLLATE "C" NOT NULL,
    -- Deliveries to one URL with the same key go out in id order while the receiver answers.
    ordering_key text COLLATE "C" NOT NULL,
    state text NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'sending', 'succeeded', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    -- Failures since the schedule last started (a manual retry starts it again).
    round_failures integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    -- Set while a worker holds the delivery; its result is recorded only under the same token.
    claim_token text,
    lease_until timestamptz,
    last_status integer,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);

-- The first delivery of each URL and ordering key that still holds its place in line (in
-- flight, or never tried): what the claim reads to keep per-key order.
CREATE INDEX delivery_lane ON delivery (url, ordering_key, id) INCLUDE (state, next_attempt_at)
    WHERE state = 'sending' OR (state = 'pending' AND attempts = 0);
-- Retries that are due (they wait for nothing), and when the next one is.
CREATE INDEX delivery_retry_due ON delivery (next_attempt_at)
    WHERE state = 'pending' AND attempts > 0;
-- Claims per URL (the window) and claims whose lease ran out.
CREATE INDEX delivery_in_flight ON delivery (url, lease_until) WHERE state = 'sending';
-- Finished deliveries by age, for the retention purge.
CREATE INDEX delivery_finished ON delivery (finished_at) WHERE state IN ('succeeded', 'failed');
-- The delivery list of an API key, newest first.
CREATE INDEX delivery_by_key ON delivery (api_key, created_at DESC, id DESC);

-- Bodies apart from the state that changes with every attempt: an update then copies a narrow
-- row, and the claim reads no bodies it does not return.
CREATE TABLE delivery_body (
    delivery_id bigint PRIMARY KEY REFERENCES delivery (id) ON DELETE CASCADE,
    body bytea NOT NULL
);

CREATE TABLE delivery_attempt (
    delivery_id bigint NOT NULL REFERENCES delivery (id) ON DELETE CASCADE,
    attempt integer NOT NULL,
    started_at timestamptz NOT NULL,
    status integer,
    latency_ms real NOT NULL,
    error text,
    PRIMARY KEY (delivery_id, attempt)
);
