-- Organization user groups (/v2/organizations/usergroups/*) and their members. A group belongs to
-- one organization of one API key and goes with it; a member is a user of that organization.
-- `id` is the group's own opaque id, the one the add endpoint answers with.

CREATE TABLE user_group (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    group_id text NOT NULL,
    id text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', ''),
    name text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, organization_id, group_id),
    FOREIGN KEY (api_key, organization_id)
        REFERENCES organization (api_key, organization_id) ON DELETE CASCADE
);

CREATE TABLE user_group_member (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    group_id text NOT NULL,
    user_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, organization_id, group_id, user_id),
    FOREIGN KEY (api_key, organization_id, group_id)
        REFERENCES user_group (api_key, organization_id, group_id) ON DELETE CASCADE
);
-- Removing a user from an organization takes them out of its groups.
CREATE INDEX user_group_member_by_user ON user_group_member (api_key, organization_id, user_id);
