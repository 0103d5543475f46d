"""Looking at a book: narrator check, verify and status, and the report."""
