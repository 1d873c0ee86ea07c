-- Counts of annotations kept as they change, so count/get reads a few counters instead of a
-- document's rows. Both tallies are kept by the triggers below, whatever statement changes an
-- annotation or who has seen it, and hold every annotation in one bucket: its document, status
-- and visibility type.
--
-- annotation_tally: how many annotations each bucket holds.
-- annotation_seen_tally: how many of them a user has seen, that is written (their creator) or
-- been shown (annotation_view), the complement of count/get's `unread`.
--
-- Counters change in key order (buckets, then users), so two changes do not deadlock on each
-- other's rows. A new view locks its annotation (FOR SHARE) while it counts it, so a
-- concurrent change of the annotation's bucket waits for it and then moves it too.

CREATE TABLE annotation_tally (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    document_id text NOT NULL,
    status_id text,
    visibility text NOT NULL,
    annotations bigint NOT NULL
);
CREATE UNIQUE INDEX annotation_tally_bucket ON annotation_tally
    (api_key, organization_id, document_id, status_id, visibility) NULLS NOT DISTINCT;

CREATE TABLE annotation_seen_tally (
    api_key text NOT NULL,
    organization_id text NOT NULL,
    user_id text NOT NULL,
    document_id text NOT NULL,
    status_id text,
    visibility text NOT NULL,
    annotations bigint NOT NULL
);
CREATE UNIQUE INDEX annotation_seen_tally_bucket ON annotation_seen_tally
    (api_key, organization_id, user_id, document_id, status_id, visibility) NULLS NOT DISTINCT;

-- count/get reads the rows outside the tallies' reach one by one: those whose visibility turns
-- on who reads them.
CREATE INDEX annotation_not_public ON annotation (api_key, organization_id, document_id)
    WHERE visibility <> 'public';

-- Count an annotation into its bucket (`delta` 1) or out of it (-1): for the annotation, its
-- creator and everyone who viewed it. PL/pgSQL, so each statement is planned once a session.
CREATE FUNCTION comments.count_annotation(a comments.annotation, delta int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO comments.annotation_tally AS t
        (api_key, organization_id, document_id, status_id, visibility, annotations)
    VALUES (a.api_key, a.organization_id, a.document_id, a.status_id, a.visibility, delta)
    ON CONFLICT (api_key, organization_id, document_id, status_id, visibility)
    DO UPDATE SET annotations = t.annotations + excluded.annotations;
    INSERT INTO comments.annotation_seen_tally AS s
        (api_key, organization_id, user_id, document_id, status_id, visibility, annotations)
    SELECT a.api_key, a.organization_id, u.user_id, a.document_id, a.status_id, a.visibility,
           delta
    FROM (
        SELECT a.creator_user_id AS user_id WHERE a.creator_user_id IS NOT NULL
        UNION
        SELECT v.user_id FROM comments.annotation_view v
        WHERE v.api_key = a.api_key AND v.organization_id = a.organization_id
          AND v.annotation_id = a.annotation_id
    ) u
    ORDER BY u.user_id
    ON CONFLICT (api_key, organization_id, user_id, document_id, status_id, visibility)
    DO UPDATE SET annotations = s.annotations + excluded.annotations;
END $$;

-- A user has seen (`delta` 1) or no longer has seen (-1) an annotation by a view of it, unless
-- they wrote it, which counts already.
CREATE FUNCTION comments.count_view(seen_row comments.annotation_view, delta int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    WITH a AS (
        SELECT api_key, organization_id, document_id, status_id, visibility
        FROM comments.annotation
        WHERE api_key = seen_row.api_key AND organization_id = seen_row.organization_id
          AND annotation_id = seen_row.annotation_id
          AND creator_user_id IS DISTINCT FROM seen_row.user_id
        FOR SHARE
    )
    INSERT INTO comments.annotation_seen_tally AS s
        (api_key, organization_id, user_id, document_id, status_id, visibility, annotations)
    SELECT api_key, organization_id, seen_row.user_id, document_id, status_id, visibility, delta
    FROM a
    ON CONFLICT (api_key, organization_id, user_id, document_id, status_id, visibility)
    DO UPDATE SET annotations = s.annotations + excluded.annotations;
END $$;

CREATE FUNCTION comments.annotation_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM comments.count_annotation(NEW, 1);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM comments.count_annotation(OLD, -1);
        RETURN OLD;
    ELSIF (OLD.document_id, OLD.status_id, OLD.visibility, OLD.creator_user_id)
          IS DISTINCT FROM (NEW.document_id, NEW.status_id, NEW.visibility, NEW.creator_user_id)
    THEN
        -- The lower bucket first (no status before any status), as every change does.
        IF (OLD.document_id, OLD.status_id IS NOT NULL, coalesce(OLD.status_id, ''),
            OLD.visibility)
           <= (NEW.document_id, NEW.status_id IS NOT NULL, coalesce(NEW.status_id, ''),
               NEW.visibility) THEN
            PERFORM comments.count_annotation(OLD, -1);
            PERFORM comments.count_annotation(NEW, 1);
        ELSE
            PERFORM comments.count_annotation(NEW, 1);
            PERFORM comments.count_annotation(OLD, -1);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION comments.view_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM comments.count_view(NEW, 1);
        RETURN NULL;
    END IF;
    PERFORM comments.count_view(OLD, -1);
    RETURN OLD;
END $$;

-- Deletes count before the row goes: a statement that deletes annotations and their views
-- together then finds each view while its annotation is still there, or finds it gone with it.
CREATE TRIGGER annotation_insert_counted AFTER INSERT ON annotation
    FOR EACH ROW EXECUTE FUNCTION comments.annotation_counted();
CREATE TRIGGER annotation_update_counted AFTER UPDATE ON annotation
    FOR EACH ROW EXECUTE FUNCTION comments.annotation_counted();
CREATE TRIGGER annotation_delete_counted BEFORE DELETE ON annotation
    FOR EACH ROW EXECUTE FUNCTION comments.annotation_counted();
CREATE TRIGGER view_insert_counted AFTER INSERT ON annotation_view
    FOR EACH ROW EXECUTE FUNCTION comments.view_counted();
CREATE TRIGGER view_delete_counted BEFORE DELETE ON annotation_view
    FOR EACH ROW EXECUTE FUNCTION comments.view_counted();

-- What is already there.
INSERT INTO annotation_tally
    (api_key, organization_id, document_id, status_id, visibility, annotations)
SELECT api_key, organization_id, document_id, status_id, visibility, count(*)
FROM annotation GROUP BY 1, 2, 3, 4, 5;

INSERT INTO annotation_seen_tally
    (api_key, organization_id, user_id, document_id, status_id, visibility, annotations)
SELECT a.api_key, a.organization_id, u.user_id, a.document_id, a.status_id, a.visibility,
       count(*)
FROM annotation a CROSS JOIN LATERAL (
    SELECT a.creator_user_id AS user_id WHERE a.creator_user_id IS NOT NULL
    UNION
    SELECT v.user_id FROM annotation_view v
    WHERE v.api_key = a.api_key AND v.organization_id = a.organization_id
      AND v.annotation_id = a.annotation_id
) u
GROUP BY 1, 2, 3, 4, 5, 6;
