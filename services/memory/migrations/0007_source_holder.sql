-- The process that holds a source's lease (`redline.pg.holders`): once it dies, the source is
-- free for another worker at once rather than when the lease runs out. NULL: not leased, or
-- leased before holders were recorded (the lease alone decides).
ALTER TABLE source ADD COLUMN holder bigint;
