-- Per-API-key configuration documents, merged into by the configuration update endpoints.
-- NULL: that section was never configured (reads fill in the defaults).
CREATE TABLE api_key_config (
    api_key text PRIMARY KEY REFERENCES api_key (api_key) ON DELETE CASCADE,
    webhook jsonb CHECK (jsonb_typeof(webhook) = 'object'),
    advanced_webhook jsonb CHECK (jsonb_typeof(advanced_webhook) = 'object'),
    activity jsonb CHECK (jsonb_typeof(activity) = 'object'),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Webhook settings given at key creation were kept on the key itself; they are the key's basic
-- webhook configuration, so they move here and the column goes (one place to read and merge).
INSERT INTO api_key_config (api_key, webhook)
SELECT api_key, webhook_config FROM api_key WHERE webhook_config <> '{}'::jsonb;

ALTER TABLE api_key DROP COLUMN webhook_config;
