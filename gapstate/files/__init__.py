"""The ground floor of input and output: reading input within bounds, and writing whole files."""
