-- Activity records: one row per record, the record exactly as the API returns it (`record`) beside
-- the columns the get endpoint filters and pages on. Records come from comments events (feature
-- types comment and reaction) and from /v2/activities/add (custom).

CREATE TABLE activity (
    workspace_id text NOT NULL,
    api_key text NOT NULL,
    organization_id text NOT NULL,
    document_id text,
    -- `act_` + the event id for recorded events (a redelivered event inserts nothing), the
    -- caller's id or a generated one for custom records.
    id text NOT NULL,
    feature_type text NOT NULL CHECK (feature_type IN ('comment', 'reaction', 'custom')),
    action_type text NOT NULL,
    -- actionUser.userId, for the userId filter.
    action_user_id text,
    -- ms since the epoch
    timestamp bigint NOT NULL,
    target_entity_id text,
    target_sub_entity_id text,
    immutable boolean NOT NULL DEFAULT false,
    record jsonb NOT NULL,
    PRIMARY KEY (api_key, id)
);

-- A document's records in time order (also what document migration moves), and an
-- organization's records in time order; both read forwards for `asc`, backwards for `desc`.
CREATE INDEX activity_by_document
    ON activity (api_key, organization_id, document_id, timestamp, id);
CREATE INDEX activity_by_organization
    ON activity (api_key, organization_id, timestamp, id);
CREATE INDEX activity_by_target
    ON activity (api_key, organization_id, target_entity_id, timestamp, id);
