-- Workspaces, their API keys and the auth tokens of each key.
-- Tokens are kept twice: a SHA-256 digest to verify with, and a copy sealed with the server key
-- (AES-GCM) because the API hands tokens back (workspace/get, authtokens/get).

CREATE TABLE workspace (
    id text PRIMARY KEY,
    name text NOT NULL,
    owner_id text NOT NULL,
    owner_email text NOT NULL,
    owner_name text NOT NULL,
    owner_avatar text NOT NULL,
    token_hash bytea NOT NULL,
    token_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_key (
    api_key text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspace (id) ON DELETE CASCADE,
    name text NOT NULL,
    key_type text NOT NULL CHECK (key_type IN ('testing', 'production')),
    -- Webhook settings given at key creation; the webhook config endpoints build on them.
    webhook_config jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    seq bigserial UNIQUE
);
CREATE INDEX api_key_by_workspace ON api_key (workspace_id, seq);

CREATE TABLE allowed_domain (
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    domain text NOT NULL,
    added_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, domain)
);

CREATE TABLE auth_token (
    id bigserial PRIMARY KEY,
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    name text NOT NULL,
    token_hash bytea NOT NULL UNIQUE,
    token_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX auth_token_live ON auth_token (api_key) WHERE revoked_at IS NULL;
