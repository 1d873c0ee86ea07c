-- The process that holds a claimed task (`redline.pg.holders`): once it dies, its tasks are due
-- again at once rather than when their lease runs out. NULL: not claimed, or claimed before
-- holders were recorded (the lease alone decides).
ALTER TABLE task ADD COLUMN holder bigint;
