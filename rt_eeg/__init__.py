"""rt-eeg: real-time EEG seizure detection.

Stages (preprocess, features, decoder, postprocess) are transport-free objects; the live
pipeline wraps them in ZeroMQ-connected processes and batch evaluation chains them in-process.
"""

from __future__ import annotations

__version__ = "0.1.0"
