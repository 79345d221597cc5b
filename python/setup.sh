#!/usr/bin/env bash
# The Python set-up, in one command from the repository's root: a virtual environment
# (target/python-venv, or $ROUTH_VENV) with NumPy, maturin and pytest from PyPI
# (python/requirements-test.txt), the `routh` package installed editable (python/routh), and the
# test and example models (python/models, the module `routh_models`) built into it by maturin.
# Then `source target/python-venv/bin/activate`.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${ROUTH_VENV:-target/python-venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e python
VIRTUAL_ENV="$PWD/$venv" "$venv/bin/maturin" develop -q -m python/models/Cargo.toml
