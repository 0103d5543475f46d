"""From a book file to speakable text: readers, normalisation, the lexicon, the segmenter."""
