-- Bodies and attempts are written only by the delivery queue, for deliveries it has just inserted
-- or holds a claim on, and deleted with their delivery by the retention purge. Their foreign keys
-- checked that again on every row at a cost the queue felt (a trigger and a lookup per body and
-- per attempt, about a third of an enqueue and of a recorded batch), so the purge now deletes
-- them itself.

ALTER TABLE delivery_body DROP CONSTRAINT delivery_body_delivery_id_fkey;
ALTER TABLE delivery_attempt DROP CONSTRAINT delivery_attempt_delivery_id_fkey;
