"""File formats: EDF reading, annotations, corpus discovery, atomic output."""
