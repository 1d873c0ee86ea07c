"""An API key's app configuration: /v2/workspace/apikeyconfig/* (and its older apikeymetadata
paths)."""
