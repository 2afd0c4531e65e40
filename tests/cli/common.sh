# Sourced by the CLI safety scripts (usage: SCRIPT KFLOW WORKDIR CASE): a fresh
# work directory, fail, a small run's options and refused <regex> <kflow args...>.
set -uo pipefail
kflow=$1 w=$2 case=$3
rm -rf "$w" && mkdir -p "$w" && cd "$w" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
small=(--quiet --set 'grid.cells=[16,16]' --set time.end=0.05 --set output.every=0.01
       --set output.lines=[])
refused() {  # refused <regex> <kflow args...>: non-zero exit, message matches
  local re=$1; shift
  "$kflow" "$@" > refused.log 2>&1 && { cat refused.log; fail "kflow $* ran"; }
  grep -Eq -e "$re" refused.log || { cat refused.log; fail "kflow $*: message does not match '$re'"; }
  echo "refused as expected: kflow $*"
}
