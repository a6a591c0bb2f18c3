# fresh_venv DIR: a new virtual environment with an up-to-date pip (sourced by
# tools/check_dist.sh and tools/check_pure.sh, from the project root)
fresh_venv() {
    python3 -m venv "$1"
    "$1/bin/python" -m pip install --quiet --upgrade pip
}
