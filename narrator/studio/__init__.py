"""narrator studio: proof-listen a book in the browser, fix its pronunciations, re-render what changed."""
