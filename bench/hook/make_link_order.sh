#!/usr/bin/env bash
# Writes bench/hook/link_order.txt: the sections of every function a hook
# call runs, for the linker to place side by side (CMakeLists.txt,
# TOGMAL_LINK_ORDER).
#
# Why: the hook is a new process on every tool call, and the kernel maps the
# binary's code on first touch, 64 KiB around each page touched. The few
# hundred functions a call runs are spread over 18 MB of code; packed
# together they take a tenth of the page faults (docs/performance.md).
#
# Run it on a release build (the `bench` preset) after changes to the hook's
# path, and commit the result. A function missing from the list still works;
# it only costs a page fault more.
#
#   bench/hook/make_link_order.sh [BINARY]   (default build/bench/togmal)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../../build/bench/togmal}
command -v valgrind >/dev/null || { echo "make_link_order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -x "$binary" ] || { echo "make_link_order.sh: no binary at $binary (cmake --build --preset bench)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=$work/names
: >"$names"
# The budget's inputs and more kinds of call (an edit, a push, a fetch, an
# outcome event), each on a fresh database and again on a warm one.
for input in "$here"/inputs/*.json "$here"/layout_inputs/*.json; do
  home=$work/home
  rm -rf "$home"
  mkdir -p "$home"
  for run in fresh warm; do
    env -i PATH=/usr/bin:/bin HOME="$home" XDG_CONFIG_HOME="$home/cfg" XDG_DATA_HOME="$home/data" \
      TOGMAL_DB="$home/togmal.db" valgrind --tool=callgrind --demangle=no --compress-strings=no \
      --callgrind-out-file="$work/out" "$binary" hook <"$input" >/dev/null 2>&1 || true
    # fn= and cfn= lines name each function run; 'N marks a recursion depth.
    sed -nE "s/^c?fn=([A-Za-z_][A-Za-z0-9_.$]*)('[0-9]+)?$/\1/p" "$work/out" >>"$names"
  done
done
# A complete-object constructor or destructor (C1, D1) is an alias of the
# base-object one (C2, D2), whose section holds the code: list both names.
# gold's --section-ordering-file takes section names only (no comments).
sed -E 's/([CD])1([EIB])/\12\2/' "$names" >"$names.base"
sort -u "$names" "$names.base" |
  awk '{ print ".text." $0; print ".text.hot." $0; print ".text.startup." $0 }' >"$here/link_order.txt"
echo "make_link_order.sh: $(sort -u "$names" | wc -l) functions in $here/link_order.txt"
