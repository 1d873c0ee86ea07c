-- Strict lines. A delivery whose retry holds its line (workflow receivers: never an event before
-- the one it follows has been answered or given up on) keeps its place while it waits for its
-- retry, and the claim takes it again through its line, as the head of a run. A basic webhook's
-- failed delivery still waits apart, and its line goes on without it. Adding a column with a
-- constant default rewrites no rows.
ALTER TABLE delivery ADD COLUMN retry_holds_line boolean NOT NULL DEFAULT false;

-- The rows that hold their place in line now include the retries that hold it.
DROP INDEX delivery_lane;
CREATE INDEX delivery_lane ON delivery (url, ordering_key, id) INCLUDE (state, next_attempt_at)
    WHERE state = 'sending' OR (state = 'pending' AND (attempts = 0 OR retry_holds_line));
-- Retries that wait apart from their line, per URL; those that hold their line are claimed
-- through it.
DROP INDEX delivery_retry_by_url;
CREATE INDEX delivery_retry_by_url ON delivery (url, next_attempt_at)
    WHERE state = 'pending' AND attempts > 0 AND NOT retry_holds_line;
-- Retries that hold their line, per URL: while not yet due, each takes a place in its URL's
-- window, as a delivery in flight does (see claim_storage.claim).
CREATE INDEX delivery_held_retry ON delivery (url, next_attempt_at)
    WHERE state = 'pending' AND attempts > 0 AND retry_holds_line;
-- (delivery_retry_due keeps its predicate: every retry, held or apart, is one to wake up for.)

-- How far each numbered line got: for a URL and ordering key whose events carry a sequence number
-- and name the one they follow (a workflow execution's events to its receiver), the greatest
-- sequence number queued. Deliveries are queued in that order, so every event up to it has its
-- delivery (or had it, before the retention purge). Kept apart from the deliveries because it
-- must outlive them: an execution may wait weeks for an approval, and the event that ends the
-- wait must still find where its line got to.
CREATE TABLE delivery_line_seq (
    url text COLLATE "C" NOT NULL,
    ordering_key text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    -- When the line's producer said no more is to come (the execution ended): the row is then
    -- purged with the retention of deliveries.
    ended_at timestamptz,
    PRIMARY KEY (url, ordering_key)
);
CREATE INDEX delivery_line_seq_ended ON delivery_line_seq (ended_at) WHERE ended_at IS NOT NULL;
