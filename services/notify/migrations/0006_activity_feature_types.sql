-- Records added through the API may name any feature type of the hosted reference: recorder and
-- crdt besides comment, reaction and custom. Recorded events still give comment or reaction.
ALTER TABLE activity DROP CONSTRAINT activity_feature_type_check;
ALTER TABLE activity ADD CONSTRAINT activity_feature_type_check
    CHECK (feature_type IN ('comment', 'reaction', 'recorder', 'crdt', 'custom'));
