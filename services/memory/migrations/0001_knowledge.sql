-- The knowledge base. PostgreSQL holds every source, its status, chunks and rules; Qdrant holds
-- their vectors (points keyed by ids derived from these rows, so writing them again is
-- harmless). A source row is also the ingest queue's entry: workers claim `processing` rows
-- whose lease has run out with FOR UPDATE SKIP LOCKED.

CREATE TABLE source (
    api_key text NOT NULL,
    source_id text NOT NULL,
    workspace_id text NOT NULL,
    organization_id text,
    document_id text,
    -- `inline` (base64 in the ingest call) or `upload` (a fileRef from upload-url).
    source_type text NOT NULL CHECK (source_type IN ('inline', 'upload')),
    file_name text,
    mime_type text NOT NULL,
    file_size bigint NOT NULL,
    sha256 text NOT NULL,
    -- The file in the blob store.
    blob_key text NOT NULL,
    status text NOT NULL DEFAULT 'processing'
        CHECK (status IN ('processing', 'completed', 'failed')),
    failure_reason text,
    failure_detail text,
    chunk_count integer,
    rule_count integer,
    -- ms since the epoch
    uploaded_at bigint NOT NULL,
    started_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    -- Claims so far: a file that kills its worker every time fails after a few.
    attempts integer NOT NULL DEFAULT 0,
    lease_until timestamptz,
    PRIMARY KEY (api_key, source_id)
);

CREATE INDEX source_waiting ON source (lease_until NULLS FIRST) WHERE status = 'processing';
CREATE INDEX source_recent ON source (api_key, uploaded_at DESC, source_id);
-- Signed download links name the source id alone.
CREATE INDEX source_by_id ON source (source_id);
CREATE INDEX source_by_document ON source (api_key, organization_id, document_id)
    WHERE document_id IS NOT NULL;

CREATE TABLE chunk (
    api_key text NOT NULL,
    source_id text NOT NULL,
    chunk_index integer NOT NULL,
    text text NOT NULL,
    page integer,
    sheet text,
    heading text,
    PRIMARY KEY (api_key, source_id, chunk_index),
    FOREIGN KEY (api_key, source_id) REFERENCES source ON DELETE CASCADE
);

CREATE TABLE rule (
    api_key text NOT NULL,
    source_id text NOT NULL,
    rule_index integer NOT NULL,
    content text NOT NULL,
    category text,
    PRIMARY KEY (api_key, source_id, rule_index),
    FOREIGN KEY (api_key, source_id) REFERENCES source ON DELETE CASCADE
);

-- Upload URLs: one row per URL handed out. `uploaded_at` is set by the one PUT it takes,
-- `source_id` by the one ingest that uses it.
CREATE TABLE upload (
    upload_id text PRIMARY KEY,
    workspace_id text NOT NULL,
    api_key text NOT NULL,
    organization_id text,
    document_id text,
    mime_type text NOT NULL,
    file_size bigint NOT NULL,
    file_name text,
    file_ref text NOT NULL UNIQUE,
    blob_key text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    uploaded_at bigint,
    uploaded_size bigint,
    sha256 text,
    source_id text
);

-- Outstanding URLs of a workspace (not yet ingested), counted against its cap.
CREATE INDEX upload_outstanding ON upload (workspace_id, expires_at) WHERE source_id IS NULL;
