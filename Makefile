# The few verbs a newcomer needs. The work is done by the scripts in devstack/ (bash + Python stdlib).
#   make serve    install, start the emulators, seed the demo world, print the base URL; Ctrl-C stops all
#   make test     install, run the test suite inside the emulators   (make test PYTEST_ARGS='-k lessons -x')
#   make bench    install, run bench/run.py inside the emulators     (make bench BENCH_ARGS='...')
#   make fuzz     install, fuzz every documented operation through Hosting (make fuzz FUZZ_SECONDS=1800)
#   make lint     ruff over functions, tests, bin, bench, support and devstack; mypy over functions/ (mypy.ini)
#   make install  install what is missing (node_modules, functions/venv, java, emulator binaries)
#   make clean    stop leftovers of a crashed run and remove .devstack/ (keeps node_modules and the venv)

SHELL := /bin/bash
VENV_PY := functions/venv/bin/python
PYTEST_ARGS ?=
BENCH_ARGS ?=
FUZZ_SECONDS ?= 900
export PYTEST_ARGS BENCH_ARGS

.PHONY: serve test bench fuzz lint install clean

serve:
	@bash devstack/serve.sh

test:
	@bash devstack/test.sh

bench:
	@bash devstack/exec.sh $(VENV_PY) bench/run.py $(BENCH_ARGS)

fuzz:
	@bash devstack/exec.sh $(VENV_PY) -m tests.fuzz.runner --max-time $(FUZZ_SECONDS)

lint: install
	functions/venv/bin/ruff check functions tests bin bench support devstack
	functions/venv/bin/mypy

install:
	@bash devstack/install.sh

clean:
	@python3 devstack/stack.py cleanup || true
	rm -rf .devstack
