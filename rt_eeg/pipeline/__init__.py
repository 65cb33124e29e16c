"""The live pipeline: wire format, transport, stage processes, supervisor."""
