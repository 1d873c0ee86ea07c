"""Permissions and user tokens (/v2/auth/*), and the access model that decides what a user may
do on a document."""
