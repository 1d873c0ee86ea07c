-- Root folders that inherit take the service's default access type (a setting). When an operator
-- changes that setting, identity rewrites their stored effective access type at start-up; this
-- index keeps the "is anything stale?" check at start-up from scanning every folder.
CREATE INDEX folder_inheriting_roots ON folder (effective_access_type)
    WHERE parent_folder_id IS NULL AND inherit_from_parent;
