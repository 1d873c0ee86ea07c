-- When each switch of a key's basic webhook settings last changed position, in epoch ms:
-- `useWebhookService` and `triggers.<event type>`. Notify decides whether an event is delivered
-- by the settings in force when it happened, not when it is read.
ALTER TABLE api_key_config ADD COLUMN webhook_switched jsonb NOT NULL DEFAULT '{}'::jsonb
    CHECK (jsonb_typeof(webhook_switched) = 'object');
