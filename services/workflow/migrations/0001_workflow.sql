-- Workflow definitions, executions, their steps, event logs and the work queue. PostgreSQL is the
-- source of truth for all of it: every change of an execution commits together with its events.

-- The current version of each definition of an API key. A deleted definition is tombstoned (kept,
-- hidden) or purged; creating its id again starts a new life (`uid`) at version 1.
CREATE TABLE definition (
    api_key text NOT NULL,
    definition_id text NOT NULL,
    workspace_id text NOT NULL,
    uid uuid NOT NULL,
    version integer NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'tombstoned')),
    -- The definition as authored, without its write-only webhookConfig.
    body jsonb NOT NULL,
    compiled jsonb NOT NULL,
    -- webhookConfig: the secret sealed, bound to the definition's life.
    receiver_url text,
    receiver_secret bytea,
    receiver_event_types text[],
    -- ms since the epoch; updated_at is unique per API key (list pages by it).
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (api_key, definition_id)
);
CREATE INDEX definition_by_update ON definition (api_key, updated_at DESC) WHERE status = 'active';

-- Every version ever current, immutable; an execution runs on the one it pinned at dispatch.
CREATE TABLE definition_version (
    uid uuid NOT NULL,
    version integer NOT NULL,
    body jsonb NOT NULL,
    compiled jsonb NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (uid, version)
);

CREATE TABLE execution (
    execution_id text PRIMARY KEY,
    api_key text NOT NULL,
    workspace_id text NOT NULL,
    definition_id text NOT NULL,
    definition_uid uuid NOT NULL,
    definition_version integer NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
    correlation_id text NOT NULL,
    idempotency_key text,
    trigger_context jsonb NOT NULL,
    organization_id text,
    document_id text,
    folder_id text,
    -- Where visible events are delivered (dispatch's webhookUrl, else the definition's
    -- webhookConfig); the secret sealed, bound to the execution.
    receiver_url text,
    receiver_secret bytea,
    receiver_event_types text[],
    -- Group quorum and loop iteration state of the run.
    graph_state jsonb NOT NULL,
    -- The seq of the last event written, and of the last one bound for the receiver.
    last_seq integer NOT NULL,
    last_sent_seq integer NOT NULL,
    -- Steps created so far: orders the steps of the execution view.
    step_count integer NOT NULL,
    started_at bigint NOT NULL,
    completed_at bigint,
    cancelled_at bigint,
    failure_reason jsonb
);
-- The idempotency key is enforced here, not by reading first: concurrent dispatches with one key
-- make one execution.
CREATE UNIQUE INDEX execution_idempotency ON execution (api_key, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX execution_by_start ON execution (api_key, started_at DESC, execution_id DESC);
CREATE INDEX execution_by_definition
    ON execution (api_key, definition_id, started_at DESC, execution_id DESC);
CREATE INDEX execution_in_flight ON execution (api_key, definition_id)
    WHERE status IN ('pending', 'running');
CREATE INDEX execution_by_document ON execution (api_key, organization_id, document_id)
    WHERE document_id IS NOT NULL;

CREATE TABLE step (
    execution_id text NOT NULL,
    step_id text NOT NULL,
    position integer NOT NULL,
    node_id text NOT NULL,
    node_type text NOT NULL,
    group_id text,
    -- The loop iteration that made the step (1 outside loops).
    iteration integer NOT NULL,
    status text NOT NULL CHECK (status IN
        ('pending', 'running', 'waiting', 'completed', 'failed', 'skipped', 'cancelled', 'breached')),
    input jsonb NOT NULL,
    output jsonb NOT NULL,
    error jsonb,
    -- A human step's reviewer responses, by reviewer id.
    responses jsonb NOT NULL,
    -- Times a worker took the step up, and how many of its runs failed in a way a retry may
    -- fix (the retry budget counts these, not a worker dying mid-run).
    attempts integer NOT NULL,
    failures integer NOT NULL,
    created_at bigint NOT NULL,
    started_at bigint,
    completed_at bigint,
    PRIMARY KEY (execution_id, step_id)
);

-- Every event of every execution, visible or internal: `seq` is gap-free here; getEvents and
-- webhooks see the visible ones only.
CREATE TABLE event (
    execution_id text NOT NULL,
    seq integer NOT NULL,
    event_id text NOT NULL,
    type text NOT NULL,
    visible boolean NOT NULL,
    step_id text,
    timestamp bigint NOT NULL,
    data jsonb,
    PRIMARY KEY (execution_id, seq)
);

-- Work any replica may do: run a step's node, or breach a step whose SLA ran out. A worker
-- claims a due task by moving its due time past a lease; one that dies leaves it due again.
CREATE TABLE task (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    execution_id text NOT NULL,
    step_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('run', 'deadline')),
    due_at timestamptz NOT NULL,
    claim_token uuid,
    UNIQUE (execution_id, step_id, kind)
);
CREATE INDEX task_due ON task (due_at);
