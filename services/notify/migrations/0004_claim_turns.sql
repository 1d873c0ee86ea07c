-- The claim works URL by URL and takes at most what each URL may still have in flight: it reads
-- the due retries of one URL at a time, oldest first, and visits a URL's document lines in turn,
-- starting after the line it last took from (kept here, one row per URL with work).
CREATE INDEX delivery_retry_by_url ON delivery (url, next_attempt_at)
    WHERE state = 'pending' AND attempts > 0;

CREATE TABLE delivery_turn (
    url text COLLATE "C" PRIMARY KEY,
    after_key text COLLATE "C" NOT NULL
);
