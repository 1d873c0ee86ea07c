-- The claim now works URL by URL and takes at most what each URL may still have in flight, so it
-- reads the due retries of one URL at a time, oldest first.
CREATE INDEX delivery_retry_by_url ON delivery (url, next_attempt_at)
    WHERE state = 'pending' AND attempts > 0;
