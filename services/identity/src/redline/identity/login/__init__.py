"""Login links of workspace owners, and whether an owner's email address is verified."""
