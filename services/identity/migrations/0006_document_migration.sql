-- Document migrations: moving everything keyed by a document id to a new id, across services.

CREATE TABLE document_migration (
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    migration_id text NOT NULL,
    organization_id text NOT NULL,
    document_id text NOT NULL,
    new_document_id text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'failed')),
    failure_reason text,
    -- The services that must take part, fixed when the migration starts.
    participants text[] NOT NULL,
    -- service -> true/false once it checked the new id; service -> moved count once it moved.
    checks jsonb NOT NULL DEFAULT '{}'::jsonb,
    moves jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, migration_id)
);

-- At most one unfinished migration per document.
CREATE UNIQUE INDEX document_migration_active
    ON document_migration (api_key, organization_id, document_id)
    WHERE status IN ('pending', 'in_progress');
