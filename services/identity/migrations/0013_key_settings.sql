-- More per-API-key settings beside the webhook and activity documents:
-- `app`: the key's app configuration (/v2/workspace/apikeyconfig/*): feature switches, the
--   default document access type, and AI model keys (sealed, with a masked form to show);
-- `permission_provider`: the customer's endpoint that decides access (its auth token sealed).
-- NULL: never configured (reads fill in the defaults).
ALTER TABLE api_key_config ADD COLUMN app jsonb CHECK (jsonb_typeof(app) = 'object');
ALTER TABLE api_key_config ADD COLUMN permission_provider jsonb
    CHECK (jsonb_typeof(permission_provider) = 'object');

-- Requests to allow a domain for an API key (/v2/workspace/domains/request), decided by the
-- key's owner (/v2/workspace/additional-url-request): accepting one adds the domain.
CREATE TABLE domain_request (
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    request_id text NOT NULL,
    domain text NOT NULL,
    organization_id text NOT NULL,
    client_document_id text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
    created_at timestamptz NOT NULL DEFAULT now(),
    decided_at timestamptz,
    PRIMARY KEY (api_key, request_id)
);
-- One open request per domain and document: asking again answers the open one.
CREATE UNIQUE INDEX domain_request_open
    ON domain_request (api_key, domain, organization_id, client_document_id)
    WHERE status = 'pending';
