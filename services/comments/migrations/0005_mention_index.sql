-- A page filtered by mentioned users reads, per document and user, the annotations that mention
-- the user already in page order (lastUpdated, then annotationId), so it costs the same whatever
-- the size of the document; the GIN index on mentioned_user_ids finds them in no order, and a
-- busy document's matches had to be sorted. Kept in step with the annotations by a trigger.
CREATE TABLE annotation_mention (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    annotation_id text NOT NULL,
    user_id text NOT NULL,
    document_id text NOT NULL,
    last_updated bigint NOT NULL,
    PRIMARY KEY (api_key, organization_id, annotation_id, user_id)
);
CREATE INDEX annotation_mention_in_page_order ON annotation_mention
    (api_key, organization_id, document_id, user_id, last_updated DESC, annotation_id);

CREATE FUNCTION comments.annotation_mentioned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND (OLD.document_id, OLD.last_updated, OLD.mentioned_user_ids)
           IS NOT DISTINCT FROM (NEW.document_id, NEW.last_updated, NEW.mentioned_user_ids) THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND cardinality(OLD.mentioned_user_ids) > 0 THEN
        DELETE FROM comments.annotation_mention
        WHERE api_key = OLD.api_key AND organization_id = OLD.organization_id
          AND annotation_id = OLD.annotation_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND cardinality(NEW.mentioned_user_ids) > 0 THEN
        INSERT INTO comments.annotation_mention
            (api_key, organization_id, annotation_id, user_id, document_id, last_updated)
        SELECT DISTINCT NEW.api_key, NEW.organization_id, NEW.annotation_id, u, NEW.document_id,
               NEW.last_updated
        FROM unnest(NEW.mentioned_user_ids) AS u WHERE u IS NOT NULL;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER annotation_mentions_kept AFTER INSERT OR UPDATE OR DELETE ON annotation
    FOR EACH ROW EXECUTE FUNCTION comments.annotation_mentioned();

INSERT INTO annotation_mention
    (api_key, organization_id, annotation_id, user_id, document_id, last_updated)
SELECT DISTINCT a.api_key, a.organization_id, a.annotation_id, u, a.document_id, a.last_updated
FROM annotation a CROSS JOIN LATERAL unnest(a.mentioned_user_ids) AS u WHERE u IS NOT NULL;
