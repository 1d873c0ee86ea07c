-- The key's in-app notification settings (/v2/workspace/notificationconfig/*), merged into like
-- the other sections. NULL: never configured (reads fill in the defaults).
ALTER TABLE api_key_config ADD COLUMN notification jsonb
    CHECK (jsonb_typeof(notification) = 'object');
-- When each switch of it last changed position, in epoch ms (`useNotificationService`,
-- `triggers.<group>.<event type>`): notify judges an event by the settings in force when it
-- happened, as it does for basic webhooks.
ALTER TABLE api_key_config ADD COLUMN notification_switched jsonb NOT NULL DEFAULT '{}'::jsonb
    CHECK (jsonb_typeof(notification_switched) = 'object');
