# The two commands a newcomer needs: `make run` and `make test`. Both build .venv first.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { command -v $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
PYTEST_WORKERS ?= 2

.PHONY: run test bench lint clean venv debs

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer is needed (python3.11 on PATH)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# Real MicroPython (WebAssembly) for the firmware tests; needs node and npm.
$(NODE_STAMP): package.json
	@if command -v npm >/dev/null 2>&1; then npm install --no-audit --no-fund --silent && touch $@; \
	else echo "npm not found: firmware-under-MicroPython tests will be skipped"; fi

run: $(STAMP)
	$(BIN)/spieltisch play

# Debian packages tests need (blender: tests/vision/test_photoreal_render.py renders a frame).
# Installed when missing, as root or through sudo; otherwise `make test` stops naming them.
DEBS := blender
debs:
	@missing=""; for p in $(DEBS); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
		else echo "make test needs the Debian package(s)$$missing: run as root or install sudo"; exit 1; fi; \
		echo "installing Debian package(s)$$missing"; \
		$$sudo apt-get install -y $$missing || { $$sudo apt-get update && $$sudo apt-get install -y $$missing; } \
		|| { echo "cannot install the Debian package(s)$$missing"; exit 1; }; \
	fi

test: $(STAMP) $(NODE_STAMP) debs
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -q

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) node_modules
