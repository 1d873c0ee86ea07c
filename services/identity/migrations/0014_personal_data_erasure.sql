-- Personal data erasure jobs: deleting or anonymising what every service holds about some users
-- of one API key. Services report through events; identity records each report here.

CREATE TABLE personal_data_erasure (
    api_key text NOT NULL REFERENCES api_key (api_key) ON DELETE CASCADE,
    job_id text NOT NULL,
    workspace_id text NOT NULL,
    user_ids text[] NOT NULL,
    -- Only these organizations' data; NULL: every organization of the API key.
    organization_ids text[],
    status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
    -- The services that must erase, fixed when the job starts.
    participants text[] NOT NULL,
    -- service -> records it erased, once it reported.
    reports jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- When the services that have not reported were last asked.
    requested_at timestamptz NOT NULL DEFAULT now(),
    last_report_at timestamptz,
    PRIMARY KEY (api_key, job_id)
);

-- Unfinished jobs by when their services were last asked: what the retry reads.
CREATE INDEX personal_data_erasure_open ON personal_data_erasure (requested_at)
    WHERE status <> 'completed';
