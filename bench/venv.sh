# Sourced by the benchmark scripts: `. bench/venv.sh` sets $venv to bench/.venv and installs
# bench/requirements.txt into it the first time and whenever the file changes (a copy of the
# installed file is kept in the venv).
bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$bench_dir/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! cmp -s "$bench_dir/requirements.txt" "$venv/requirements.installed"; then
  start=$(date +%s)
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$bench_dir/requirements.txt"
  cp "$bench_dir/requirements.txt" "$venv/requirements.installed"
  echo "bench/.venv: requirements installed in $(( $(date +%s) - start )) s" >&2
fi
