"""The master WAV, assembled from verified segments at the book's loudness."""
