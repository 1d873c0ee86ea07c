-- A document id that an unfinished migration moves a document to is held: no document may be
-- created with it, and access questions about either id are answered with the moving document's
-- access. Both look migrations up by the new id.
CREATE INDEX document_migration_held
    ON document_migration (api_key, organization_id, new_document_id)
    WHERE status IN ('pending', 'in_progress');
