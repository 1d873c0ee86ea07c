-- Comment annotations. Each row holds the whole annotation as the get endpoint returns it
-- (`body`, comments and reactions included), plus the columns every filter of the get endpoint
-- uses, kept in step with `body` by the service. Everything belongs to one API key.

CREATE TABLE annotation (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    document_id text NOT NULL,
    annotation_id text NOT NULL,
    -- Per document, in creation order (annotationNumber).
    annotation_number bigint NOT NULL,
    type text NOT NULL CHECK (type IN ('comment', 'suggestion')),
    source_type text NOT NULL CHECK (source_type IN ('rest-api', 'agent')),
    suggestion_status text CHECK (suggestion_status IN ('pending', 'accepted', 'rejected')),
    status_id text,
    status_type text,
    location_id text,
    creator_user_id text,
    assigned_user_id text,
    resolved_by text,
    visibility text NOT NULL DEFAULT 'public'
        CHECK (visibility IN ('public', 'organizationPrivate', 'restricted')),
    -- Users a `restricted` annotation is visible to, beyond its author.
    visible_to text[] NOT NULL DEFAULT '{}',
    mentioned_user_ids text[] NOT NULL DEFAULT '{}',
    commenter_user_ids text[] NOT NULL DEFAULT '{}',
    agent_id text,
    agent_type text,
    agent_source text,
    execution_id text,
    created_at bigint NOT NULL,     -- ms since the epoch
    last_updated bigint NOT NULL,   -- ms since the epoch
    body jsonb NOT NULL,
    PRIMARY KEY (api_key, organization_id, annotation_id)
);

-- The get endpoint's main shapes: a document's annotations by lastUpdated, and the same across
-- an organization; the array columns answer "any of these users".
CREATE INDEX annotation_by_document
    ON annotation (api_key, organization_id, document_id, last_updated DESC, annotation_id);
CREATE INDEX annotation_by_organization
    ON annotation (api_key, organization_id, last_updated DESC, annotation_id);
CREATE INDEX annotation_by_location
    ON annotation (api_key, organization_id, document_id, location_id);
CREATE INDEX annotation_mentions ON annotation USING gin (mentioned_user_ids);
CREATE INDEX annotation_agent
    ON annotation (api_key, organization_id, agent_id) WHERE agent_id IS NOT NULL;

-- The next annotationNumber of each document.
CREATE TABLE document_counter (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    document_id text NOT NULL,
    next_number bigint NOT NULL,
    PRIMARY KEY (api_key, organization_id, document_id)
);

-- Who has seen which annotation (the `unread` of count/get).
CREATE TABLE annotation_view (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    annotation_id text NOT NULL,
    user_id text NOT NULL,
    viewed_at bigint NOT NULL,
    PRIMARY KEY (api_key, organization_id, annotation_id, user_id)
);
