-- Mail: the email configuration of an API key, login links of workspace owners, invitations.
-- Link tokens are kept only as SHA-256 digests: the mail holds the token, nothing here can
-- rebuild it. A token works once (a login link's used_at, an invitation no longer pending) and
-- until its expiry.

ALTER TABLE api_key_config ADD COLUMN email jsonb CHECK (jsonb_typeof(email) = 'object');

CREATE TABLE login_link (
    token_hash bytea PRIMARY KEY,
    email text NOT NULL,                       -- lowercased
    continue_url text NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_link_expiry ON login_link (expires_at);

-- A login link goes to the owner of a workspace: looked up by address, in any case.
CREATE INDEX workspace_owner_email ON workspace (lower(owner_email));

-- Owner addresses proven by following a login link.
CREATE TABLE verified_email (
    email text PRIMARY KEY,                    -- lowercased
    verified_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE invitation (
    id text PRIMARY KEY,
    api_key text NOT NULL,
    organization_id text NOT NULL,
    invite_type text NOT NULL CHECK (invite_type IN ('org_user', 'doc_user', 'folder_user')),
    -- The organization id, the document id or the folder id, by invite_type.
    resource_id text NOT NULL,
    email text NOT NULL,                       -- lowercased
    organization_name text NOT NULL DEFAULT '',
    resource_name text NOT NULL DEFAULT '',
    invited_by jsonb,
    status text NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'ACCEPTED', 'REJECTED', 'WITHDRAWN')),
    user_id text,                              -- who accepted
    token_hash bytea NOT NULL UNIQUE,          -- of the latest link; replaced when invited again
    token_expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    responded_at timestamptz,
    seq bigserial UNIQUE,
    UNIQUE (api_key, organization_id, invite_type, resource_id, email),
    FOREIGN KEY (api_key, organization_id)
        REFERENCES organization (api_key, organization_id) ON DELETE CASCADE
);
CREATE INDEX invitation_by_email ON invitation (api_key, organization_id, email, seq);
CREATE INDEX invitation_pending ON invitation (api_key, organization_id, invite_type)
    WHERE status = 'PENDING';
