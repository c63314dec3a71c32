"""The spec: reading its file, the table grammar and parser, the table model, the vocabulary, loading."""
