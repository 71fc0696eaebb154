"""Storage: SQLAlchemy 2 async over SQLite (default) or PostgreSQL, schema by Alembic."""
