-- wrk: every request creates a bug.
wrk.method = "POST"
wrk.body = '{"name": "Created by wrk", "priority": "High", "dueDate": "2026-12-01"}'
