"""The table language: the table block's grammar and parser, the table model, the vocabulary, the rules and bounds, loading a spec."""
