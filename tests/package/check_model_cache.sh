#!/usr/bin/env bash
# cmake/cached_model.cmake: the built-in model's trainer runs once per set of
# inputs; a second build tree with the same inputs copies the kept output; a
# changed input trains again; a failed training keeps nothing; four outputs
# are kept. A stand-in trainer counts its runs.
#   check_model_cache.sh SOURCE_DIR CMAKE
set -euo pipefail
source_dir=$1
cmake=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/trainer" <<'SH'
#!/bin/sh
# args: catalogue corpus OUTPUT [options…]; fails when the catalogue says so
echo run >> "$(dirname "$0")/runs"
grep -q fail "$1" && exit 3
{ cat "$1"; date +%s%N; } > "$3"
SH
chmod +x "$work/trainer"
echo v1 > "$work/catalogue"
mkdir "$work/corpus"
printf '%s\n' "$work/catalogue" > "$work/inputs"

fail() { echo "FAIL: $*" >&2; cat "$work/log" >&2; exit 1; }
runs() { [ -f "$work/runs" ] && wc -l < "$work/runs" || echo 0; }
train() {  # OUTPUT CACHE_DIR
  "$cmake" -DTRAINER="$work/trainer" "-DARGS=$work/catalogue;$work/corpus" -DOUTPUT="$1" \
    -DOPTIONS=--selection -DINPUTS="$work/inputs" -DSOURCE_DIR="$work" -DCOMPILER="GNU 12" \
    -DCACHE_DIR="$2" -P "$source_dir/cmake/cached_model.cmake" > "$work/log" 2>&1
}

train "$work/a.cpp" "$work/cache" || fail "first training"
[ "$(runs)" -eq 1 ] || fail "the trainer ran $(runs) times, not once"
train "$work/b.cpp" "$work/cache" || fail "second tree"
[ "$(runs)" -eq 1 ] || fail "the second tree trained again instead of reusing"
cmp -s "$work/a.cpp" "$work/b.cpp" || fail "the reused output differs from the trained one"
grep -q "reused" "$work/log" || fail "the reuse is not reported"

echo v2 > "$work/catalogue"
train "$work/c.cpp" "$work/cache" || fail "training after a change"
[ "$(runs)" -eq 2 ] || fail "a changed input did not train again"
grep -q v2 "$work/c.cpp" || fail "the output is not the new training's"

echo fail > "$work/catalogue"
if train "$work/d.cpp" "$work/cache"; then fail "a failed training succeeded"; fi
[ "$(ls "$work/cache" | wc -l)" -eq 2 ] || fail "a failed training left something in the cache"

for v in 3 4 5 6; do
  echo "v$v" > "$work/catalogue"
  train "$work/e.cpp" "$work/cache" || fail "training v$v"
done
[ "$(ls "$work/cache" | wc -l)" -eq 4 ] || fail "$(ls "$work/cache" | wc -l) outputs kept, not 4"
ls "$work/cache" | grep -q tmp && fail "a temporary file was left"

before=$(runs)
train "$work/f.cpp" "" || fail "training without a cache"
train "$work/f.cpp" "" || fail "training without a cache, again"
[ "$(runs)" -eq $((before + 2)) ] || fail "with no cache folder the trainer must run every time"
echo "model cache: ok"
