-- One switch history for every section of a key's settings: when each on/off switch last
-- changed position (epoch ms), by `<section>.<switch>` (`webhook.useWebhookService`,
-- `notification.triggers.comment.comment.add`, `activity.isEnabled`, ...). Notify judges every
-- event by the switches as they stood when it happened, with one rule.
ALTER TABLE api_key_config ADD COLUMN switched jsonb NOT NULL DEFAULT '{}'::jsonb
    CHECK (jsonb_typeof(switched) = 'object');

-- The two histories kept so far, under their section's name; activity logs, which kept none,
-- have been on since their `enabledTime`.
UPDATE api_key_config SET switched =
    (SELECT coalesce(jsonb_object_agg('webhook.' || key, value), '{}'::jsonb)
     FROM jsonb_each(webhook_switched))
    || (SELECT coalesce(jsonb_object_agg('notification.' || key, value), '{}'::jsonb)
        FROM jsonb_each(notification_switched))
    || CASE
        WHEN activity -> 'isEnabled' = 'true'::jsonb
            AND jsonb_typeof(activity -> 'enabledTime') = 'number'
        THEN jsonb_build_object('activity.isEnabled', activity -> 'enabledTime')
        ELSE '{}'::jsonb
    END;

ALTER TABLE api_key_config DROP COLUMN webhook_switched, DROP COLUMN notification_switched;

-- When an endpoint last started or stopped taking events: made, disabled or enabled again.
ALTER TABLE advanced_webhook_endpoint ADD COLUMN switched_at timestamptz;
UPDATE advanced_webhook_endpoint SET switched_at = created_at;
ALTER TABLE advanced_webhook_endpoint
    ALTER COLUMN switched_at SET NOT NULL,
    ALTER COLUMN switched_at SET DEFAULT now();
