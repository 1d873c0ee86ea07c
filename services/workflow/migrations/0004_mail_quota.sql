-- Recipients each workspace sent mail to through the operator's SMTP relay, per clock hour: the
-- count behind the per-hour and per-day mail quotas (redline.runtime.mail_quota), shared by
-- every replica. A row older than a day is deleted when the workspace next sends.
CREATE TABLE mail_quota (
    workspace_id text COLLATE "C" NOT NULL,
    hour timestamptz NOT NULL,
    recipients integer NOT NULL CHECK (recipients >= 0),
    PRIMARY KEY (workspace_id, hour)
);
