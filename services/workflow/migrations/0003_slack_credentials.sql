-- Each API key's own Slack bot token, for notification nodes that post to a channel id. The
-- token is sealed (AES-GCM, bound to the key), never stored in the clear; the hint is the
-- token's type prefix and last four characters, so its owner can tell which one is set.
CREATE TABLE slack_credential (
    api_key text PRIMARY KEY,
    workspace_id text NOT NULL,
    bot_token_sealed bytea NOT NULL,
    token_hint text NOT NULL,
    updated_at bigint NOT NULL
);
