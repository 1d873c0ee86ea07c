-- In-app notifications. `notification`: one row per notification, the record as the API returns
-- it (`record`) beside the columns filters and paging use. `notification_recipient`: a user's
-- place in it (their feed entry and its read state). `notification_user_config`: what each user
-- receives, per organization ('' document) or per document.

CREATE TABLE notification (
    workspace_id text NOT NULL,
    api_key text NOT NULL,
    organization_id text NOT NULL,
    document_id text,
    location_id text,
    -- `ntf_` + the event id + the reason for notifications made from comments events (a
    -- redelivered event inserts nothing); the caller's id or a generated one otherwise.
    id text NOT NULL,
    -- ms since the epoch
    timestamp bigint NOT NULL,
    -- notifyAll: in the feed of every user of the organization, besides the named recipients.
    notify_all boolean NOT NULL DEFAULT false,
    record jsonb NOT NULL,
    PRIMARY KEY (api_key, id)
);

CREATE INDEX notification_by_organization
    ON notification (api_key, organization_id, timestamp, id);
CREATE INDEX notification_by_document
    ON notification (api_key, organization_id, document_id, timestamp, id);

CREATE TABLE notification_recipient (
    api_key text NOT NULL,
    notification_id text NOT NULL,
    user_id text NOT NULL,
    organization_id text NOT NULL,
    timestamp bigint NOT NULL,
    -- false: the row only holds this user's state of a notifyAll notification.
    named boolean NOT NULL DEFAULT true,
    is_read boolean NOT NULL DEFAULT false,
    -- Deleted from this user's feed only.
    hidden boolean NOT NULL DEFAULT false,
    PRIMARY KEY (api_key, notification_id, user_id),
    FOREIGN KEY (api_key, notification_id) REFERENCES notification (api_key, id) ON DELETE CASCADE
);

-- A user's feed in time order, read forwards for `asc`, backwards for `desc`.
CREATE INDEX notification_recipient_feed
    ON notification_recipient (api_key, organization_id, user_id, timestamp, notification_id);

CREATE TABLE notification_user_config (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    user_id text NOT NULL,
    -- '' for the organization-level config, the user's default for every document.
    document_id text NOT NULL,
    -- {"inbox"?, "email"?, "slack"?}: ALL, MINE or NONE; a channel never set is absent.
    config jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object'),
    PRIMARY KEY (api_key, organization_id, user_id, document_id)
);
