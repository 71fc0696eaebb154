"""Pages for people rather than programs: server-rendered HTML that the app's own links open (an
item's page, which previews, unfurls and notification cards link to)."""
