-- The process that holds a delivery being sent (`redline.pg.holders`): once it dies, the
-- delivery is given back at once rather than when its lease runs out. NULL: not being sent, or
-- claimed before holders were recorded (the lease alone decides).
ALTER TABLE delivery ADD COLUMN holder bigint;
