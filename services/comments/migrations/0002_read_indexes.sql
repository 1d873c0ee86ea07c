-- The get endpoint's commonest filter beside the document: one status, newest first. The row's
-- lastUpdated order within a (document, status) comes straight from this index, so a page is
-- read without skipping the document's other statuses.
CREATE INDEX annotation_by_status
    ON annotation (api_key, organization_id, document_id, status_id, last_updated DESC, annotation_id);
