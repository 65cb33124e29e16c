# Both targets bootstrap .venv on a fresh machine (Python >= 3.11), with the tested versions of
# every package (constraints.txt; CONSTRAINTS= resolves pyproject.toml's ranges freely).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONSTRAINTS ?= constraints.txt

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) -e '.[test]'
	touch $(STAMP)

# Replays the bundled 10-minute recording through the live pipeline at 1x, with the monitor
# on a display or headless (screenshot beside the outputs) when there is none.
run: $(STAMP)
	$(BIN)/rt-eeg replay data_samples/sample_s001_t000.edf --out runs/sample --speed 1 --screenshot-at 185 $(if $(DISPLAY),,--headless)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check rt_eeg tools tests

clean:
	rm -rf $(VENV) runs
