"""Running the table: the one pure step, the trace format, replay."""
