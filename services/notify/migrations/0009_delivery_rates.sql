-- Receivers with a rate of their own (an advanced webhook endpoint's `rateLimit`, deliveries per
-- second): the next free moment to send to each. Every send to such a receiver takes the next
-- free slot, at least 1/rate after the one before, and moves it on, in one statement shared by
-- every replica; the sender waits for its slot. A row whose slot is long past is forgotten by
-- the delivery purge.
CREATE TABLE delivery_rate (
    -- The kind of delivery and its target (`advanced:ep_…`).
    receiver text COLLATE "C" PRIMARY KEY,
    next_at timestamptz NOT NULL
);
