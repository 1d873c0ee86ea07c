-- Every documented filter of the get endpoint has an index that yields a document's matching
-- annotations already in the page order (lastUpdated, then annotationId), so a page reads only
-- its own rows however large the document grows. The agent filters are partial: only agents'
-- annotations pay for them.
DROP INDEX comments.annotation_by_location;
CREATE INDEX annotation_by_location
    ON annotation (api_key, organization_id, document_id, location_id, last_updated DESC, annotation_id);
CREATE INDEX annotation_by_creator
    ON annotation (api_key, organization_id, document_id, creator_user_id, last_updated DESC, annotation_id);
CREATE INDEX annotation_by_resolver
    ON annotation (api_key, organization_id, document_id, resolved_by, last_updated DESC, annotation_id)
    WHERE resolved_by IS NOT NULL;
CREATE INDEX annotation_by_agent_id
    ON annotation (api_key, organization_id, document_id, agent_id, last_updated DESC, annotation_id)
    WHERE agent_id IS NOT NULL;
CREATE INDEX annotation_by_execution
    ON annotation (api_key, organization_id, document_id, execution_id, last_updated DESC, annotation_id)
    WHERE execution_id IS NOT NULL;
-- agentComments, agentType and agentSource: a document's agent annotations, in page order.
CREATE INDEX annotation_by_agent_comments
    ON annotation (api_key, organization_id, document_id, last_updated DESC, annotation_id)
    WHERE source_type = 'agent';
CREATE INDEX annotation_by_agent_suggestions
    ON annotation (api_key, organization_id, document_id, last_updated DESC, annotation_id)
    WHERE source_type = 'agent' AND suggestion_status = 'pending';
-- The organization-wide order is kept on an expression that only organization-wide reads order
-- by, so a read of one document can never take it and step over other documents' newer rows
-- (the planner would, when statistics say the document is most of the organization).
DROP INDEX comments.annotation_by_organization;
CREATE INDEX annotation_by_organization
    ON annotation (api_key, organization_id, (-last_updated), annotation_id);
