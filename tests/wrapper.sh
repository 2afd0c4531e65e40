#!/usr/bin/env bash
# The README's wrapper (tools/kflow) with paths outside the work tree: the
# case, --output and output.directory land where the user named them (the
# host's /tmp, beside the tree); kflow run in the toolchain root without the
# wrapper's shared directories refuses such output instead of losing it.
# Run by tools/test on the host (outside the root), before ctest.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
fail() { echo "wrapper test FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/kflow-wrapper-XXXXXX)
beside="$top/../kflow-wrapper-$$"
trap 'rm -rf "$tmp" "$beside"' EXIT
cp "$top/cases/diffusion/sine-2d.toml" "$tmp/case.toml"
small=(--quiet --set 'grid.cells=[16,16]' --set time.end=0.5 --set output.lines=[])
"$top/tools/kflow" run "$tmp/case.toml" "${small[@]}" --output "$tmp/out" > /dev/null 2>&1 ||
  fail "a case and output in /tmp"
"$top/tools/kflow" run "$tmp/case.toml" "${small[@]}" --output "$tmp/out" > /dev/null 2>&1 ||
  fail "a rerun into the same output directory (it must not be a mount point)"
[[ -f "$tmp/out/summary.json" ]] || fail "no $tmp/out/summary.json on the host"
if [[ -w "$top/.." ]]; then  # a directory beside the tree, named in the case
  (cd "$top" && tools/kflow run cases/diffusion/sine-2d.toml "${small[@]}" \
    --set "output.directory=\"$beside\"" > /dev/null 2>&1) || fail "output.directory beside the tree"
  [[ -f "$beside/summary.json" ]] || fail "no $beside/summary.json on the host"
fi
out=$("$top/tools/in-root.sh" -- "$top/build/src/app/kflow" run \
  "$top/cases/diffusion/sine-2d.toml" "${small[@]}" --output "$tmp/lost" 2>&1) &&
  fail "kflow in the root wrote to its private /tmp"
[[ "$out" == *"is outside the host directories this toolchain root shares"* ]] || fail "$out"
out=$("$top/tools/in-root.sh" -- "$top/build/src/app/kflow" check "$tmp/case.toml" 2>&1) &&
  fail "the root read a case it cannot see"
[[ "$out" == *"tools/kflow shares the directories"* ]] || fail "$out"
echo "wrapper ok: /tmp and paths beside the tree reach the host; unreachable output is refused"
