"""Where ingested files are kept: an interface, and a directory on local disk behind it."""

from redline.memory.blobs.store import BlobMissing, BlobStore, LocalBlobStore

__all__ = ["BlobMissing", "BlobStore", "LocalBlobStore"]
