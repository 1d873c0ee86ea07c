"""Organization user groups: /v2/organizations/usergroups/*, and who a group names."""
