-- An organization or a document can be disabled (/v2/organizations/access/disablestate/update,
-- /v2/organizations/documents/access/disablestate/update): it stays readable and refuses every
-- write that touches it until it is enabled again (see docs/decisions.md).
ALTER TABLE organization ADD COLUMN disabled boolean NOT NULL DEFAULT false;
ALTER TABLE document ADD COLUMN disabled boolean NOT NULL DEFAULT false;
