-- Fair ingest: when each workspace last had a knowledge file taken up by a worker. A claim goes
-- to the workspace with waiting files that was served longest ago (one never served first), so
-- one tenant's backlog cannot hold up every other tenant's files.
CREATE TABLE ingest_turn (
    workspace_id text PRIMARY KEY,
    claimed_at timestamptz NOT NULL
);

-- A workspace's queued and processing sources, counted against its cap on outstanding ingests.
CREATE INDEX source_processing_by_workspace ON source (workspace_id, started_at)
    WHERE status = 'processing';
