"""Testing an implementation: conformance vectors, the line protocol, and the comparison of its answers with the table."""
