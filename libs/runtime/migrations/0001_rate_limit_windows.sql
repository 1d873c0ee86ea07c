-- The rate limit counts every process of every service shares: one row per limited key (a
-- digest of its tier and key, so neither API keys nor client addresses are stored), its window
-- and the counts of that window and the one before. Unlogged: counts of the last two minutes
-- are not worth a write-ahead log, and a crash that empties the table only forgives them.
CREATE UNLOGGED TABLE windows (
    key bytea PRIMARY KEY,
    start_s double precision NOT NULL,
    current_count integer NOT NULL,
    previous_count integer NOT NULL
);
-- The sweep of keys idle for two windows.
CREATE INDEX windows_start ON windows (start_s);
