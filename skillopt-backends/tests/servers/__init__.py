"""Provider-protocol HTTP servers for the backend tests (127.0.0.1 only)."""
