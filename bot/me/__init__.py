"""Personal views: the caller's items across every channel they may read, and those channels."""
