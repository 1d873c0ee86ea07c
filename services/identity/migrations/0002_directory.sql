-- Organizations, folders, documents, users and access grants. Everything belongs to one API key
-- (and through it to one workspace); every key and every query starts with api_key.

CREATE TABLE organization (
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    organization_id text NOT NULL,
    name text NOT NULL DEFAULT '',
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, organization_id)
);

CREATE TABLE folder (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    folder_id text NOT NULL,
    name text NOT NULL DEFAULT '',
    parent_folder_id text,                     -- NULL: at the organization's root
    ancestors text[] NOT NULL DEFAULT '{}',    -- root first, the folder itself excluded
    access_type text CHECK (access_type IN ('public', 'organizationPrivate', 'restricted')),
    inherit_from_parent boolean NOT NULL DEFAULT true,
    -- What applies after inheritance; recomputed for a whole subtree when an ancestor changes.
    effective_access_type text NOT NULL
        CHECK (effective_access_type IN ('public', 'organizationPrivate', 'restricted')),
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, organization_id, folder_id),
    FOREIGN KEY (api_key, organization_id)
        REFERENCES organization (api_key, organization_id) ON DELETE CASCADE
);
CREATE INDEX folder_children ON folder (api_key, organization_id, parent_folder_id);
CREATE INDEX folder_ancestors ON folder USING gin (ancestors);

CREATE TABLE document (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    document_id text NOT NULL,
    name text NOT NULL DEFAULT '',
    folder_id text,                            -- NULL: not in a folder
    access_type text CHECK (access_type IN ('public', 'organizationPrivate', 'restricted')),
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, organization_id, document_id),
    FOREIGN KEY (api_key, organization_id)
        REFERENCES organization (api_key, organization_id) ON DELETE CASCADE
);
CREATE INDEX document_in_folder ON document (api_key, organization_id, folder_id);

CREATE TABLE app_user (
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    user_id text NOT NULL,
    name text NOT NULL DEFAULT '',
    email text NOT NULL DEFAULT '',
    initial text NOT NULL DEFAULT '',
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, user_id)
);

-- A user's access to one resource: membership added through /v2/users/add at that level, or a
-- permission added through /v2/auth/permissions/add. For an organization, resource_id is the
-- organization id.
CREATE TABLE access_grant (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    user_id text NOT NULL,
    resource_type text NOT NULL CHECK (resource_type IN ('organization', 'folder', 'document')),
    resource_id text NOT NULL,
    access_role text NOT NULL CHECK (access_role IN ('viewer', 'editor')),
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, organization_id, user_id, resource_type, resource_id),
    FOREIGN KEY (api_key, organization_id)
        REFERENCES organization (api_key, organization_id) ON DELETE CASCADE
);
CREATE INDEX access_grant_by_resource
    ON access_grant (api_key, organization_id, resource_type, resource_id);
