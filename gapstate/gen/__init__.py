"""Deciders generated from the table (Rust, Python), and the proof that one still is the table."""
