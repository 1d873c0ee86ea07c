-- Notification mail: the queue of mails to users about their notifications. One row is one mail
-- to one user, gathering one or more notifications (a digest, when the key batches them). It is
-- written in the transaction that records the notifications and deleted once the relay took the
-- mail (or once nothing is left to send: the notifications read, deleted or mail turned off).

CREATE TABLE notification_mail (
    id bigserial PRIMARY KEY,
    workspace_id text NOT NULL,
    api_key text NOT NULL,
    user_id text NOT NULL,
    -- What the mail gathers: 'user' (every notification of the user while the batch is open),
    -- 'document:<organization>:<document>' (per document), 'notification:<id>' (just one).
    batch_key text NOT NULL,
    notification_ids text[] NOT NULL,
    -- The batch closes (and is due at once) when it holds this many notifications.
    max_notifications integer NOT NULL CHECK (max_notifications >= 1),
    -- open: still gathering; waiting: closed, due at due_at (also after a failed attempt);
    -- sending: claimed by a worker until lease_until; failed: given up, kept for the operator.
    state text NOT NULL CHECK (state IN ('open', 'waiting', 'sending', 'failed')),
    due_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    lease_until timestamptz,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- At most one open batch per user and batch key: a new notification joins it.
CREATE UNIQUE INDEX notification_mail_open
    ON notification_mail (api_key, user_id, batch_key) WHERE state = 'open';
-- What the worker claims next.
CREATE INDEX notification_mail_due ON notification_mail (due_at) WHERE state <> 'failed';
-- A user's rows, for personal data erasure.
CREATE INDEX notification_mail_by_user ON notification_mail (api_key, user_id);
