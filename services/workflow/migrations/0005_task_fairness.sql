-- The task queue is shared fairly between API keys: each task names its execution's key, a
-- claim takes a bounded number per key and visits the keys in turn, and no key has more than
-- its share of tasks in flight across replicas.
ALTER TABLE task ADD COLUMN api_key text;
UPDATE task t SET api_key = e.api_key FROM execution e WHERE e.execution_id = t.execution_id;
-- A task whose execution is gone has nothing to do.
DELETE FROM task WHERE api_key IS NULL;
ALTER TABLE task ALTER COLUMN api_key SET NOT NULL;
-- A claim walks the keys with tasks (one probe per key) and takes each key's earliest due.
CREATE INDEX task_by_key ON task (api_key, due_at);
-- The tasks a worker holds (or held, until its lease runs out), counted per key by each claim.
CREATE INDEX task_claimed ON task (api_key) WHERE claim_token IS NOT NULL;
-- Where the next claim's visit of the keys starts: just after the last key the previous one
-- served. One row, shared by every replica.
CREATE TABLE task_turn (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    after_key text NOT NULL
);
