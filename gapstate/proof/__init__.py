"""The proof: exploring every reachable configuration and judging the table on it."""
