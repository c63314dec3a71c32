"""Testing implementations: guided walks, fuzzing, conformance vectors and the line protocol."""
