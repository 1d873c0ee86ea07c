-- The definitions with at least one enabled schedule trigger. Every replica's scheduler reads
-- them every few seconds; without this index each read would scan every definition's body.
-- The scheduler's query repeats this predicate word for word, so that the planner can use it.
CREATE INDEX definition_scheduled ON definition (api_key, definition_id)
    WHERE status = 'active' AND body @? '$.triggers[*].schedule ? (@.enabled == true)';
