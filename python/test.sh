#!/usr/bin/env bash
# The Python binding's tests, in one command from the repository's root: the set-up
# (python/setup.sh: the virtual environment, the `routh` package, the test models built by
# maturin), then pytest. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./python/setup.sh
"${ROUTH_VENV:-target/python-venv}/bin/python" -m pytest -q python/tests "$@"
