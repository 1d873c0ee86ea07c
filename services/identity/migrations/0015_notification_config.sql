-- The key's in-app notification settings (/v2/workspace/notificationconfig/*), merged into like
-- the other sections. NULL: never configured (reads fill in the defaults).
ALTER TABLE api_key_config ADD COLUMN notification jsonb
    CHECK (jsonb_typeof(notification) = 'object');
