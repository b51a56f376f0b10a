#!/usr/bin/env bash
# Builds the Debian package from an already built tree and checks it as `dpkg -i`
# would see it: control fields, file list, owners and modes, the man page, and
# the binary run from the unpacked package.
#
#   check_deb.sh BUILD_DIR SOURCE_DIR VERSION [CPACK]
set -euo pipefail
build_dir=$1 source_dir=$2 version=$3 cpack=${4:-cpack}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

# CPack first brings the build tree up to date: a no-op after the build.
if ! "$cpack" --config "$build_dir/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  echo "FAIL: cpack" >&2
  exit 1
fi
arch=$(dpkg --print-architecture)
deb="$work/out/togmal_${version}_${arch}.deb"
if [ ! -f "$deb" ]; then
  cat "$work/cpack.log" >&2
  ls -R "$work/out" >&2
  echo "FAIL: no $deb" >&2
  exit 1
fi

# Control fields.
dpkg-deb -I "$deb" >"$work/info"
field() { sed -n "s/^ $1: //p" "$work/info"; }
[ "$(field Package)" = togmal ] || fail "Package: '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version: '$(field Version)', want $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: '$(field Architecture)', want $arch"
[ "$(field Section)" = utils ] || fail "Section: '$(field Section)'"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
field Description | grep -q 'guard between an AI agent' || fail "Description: '$(field Description)'"
grep -q '^ Depends:' "$work/info" && fail "the static binary needs no Depends: $(field Depends)"

# Files, owners and modes.
dpkg-deb -c "$deb" >"$work/contents"
has() { # MODE PATH
  grep -Eq "^$1 root/root .* \\./$2\$" "$work/contents" || fail "no $2 with mode $1 owned by root"
}
has -rwxr-xr-x usr/bin/togmal
has -rw-r--r-- usr/share/man/man1/togmal.1.gz
has -rw-r--r-- usr/share/doc/togmal/README.md
has -rw-r--r-- usr/share/doc/togmal/copyright
for doc in "$source_dir"/docs/*.md; do
  has -rw-r--r-- "usr/share/doc/togmal/docs/$(basename "$doc")"
done
grep -Ev ' root/root ' "$work/contents" && fail "entries not owned by root/root"
grep -E '^d' "$work/contents" | grep -Ev '^drwxr-xr-x ' && fail "directories not 0755"
# The audit shipping timer for hook-only machines (packaging/systemd/): user units.
has -rw-r--r-- usr/lib/systemd/user/togmal-ship.service
has -rw-r--r-- usr/lib/systemd/user/togmal-ship.timer
grep -E '\./usr/(local|lib)/' "$work/contents" | grep -Ev '\./usr/lib/(systemd/user/(togmal-ship\.(service|timer))?|systemd/?)?$' &&
  fail "files outside /usr/bin, /usr/share and the systemd user units"

# The package unpacked into a scratch root, as dpkg -i would lay it out.
dpkg-deb -x "$deb" "$work/root"
togmal="$work/root/usr/bin/togmal"
[ "$("$togmal" --version)" = "$version" ] || fail "togmal --version: '$("$togmal" --version)'"
if readelf -l "$togmal" 2>/dev/null | grep -q 'program interpreter'; then
  fail "usr/bin/togmal is linked dynamically but the package has no Depends"
fi
cmp -s "$source_dir/LICENSE" "$work/root/usr/share/doc/togmal/copyright" || fail "copyright is not LICENSE"

man_page="$work/root/usr/share/man/man1/togmal.1.gz"
gzip -t "$man_page" || fail "togmal.1.gz is not gzip"
gzip -dc "$man_page" >"$work/togmal.1"
grep -q "^\\.TH TOGMAL 1 .*togmal $version" "$work/togmal.1" || fail "man page: no .TH line for $version"
# Every subcommand of `togmal --help` has its section.
commands=$("$togmal" --help | sed -n '/^Subcommands:/,$s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ -n "$commands" ] || fail "togmal --help lists no subcommands"
for command in $commands; do
  grep -q "^\\.SS togmal $command\$" "$work/togmal.1" || fail "man page: no section for togmal $command"
done
grep -qF "$build_dir" "$work/togmal.1" && fail "man page: mentions the build directory"

# The unpacked binary decides: a destructive command is denied.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/data" TOGMAL_DB="$work/togmal.db"
answer=$(printf '%s' '{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' |
  "$togmal" hook) || fail "togmal hook exit $?"
printf '%s' "$answer" | grep -q '"permissionDecision":"deny"' || fail "togmal hook on rm -rf /: $answer"

# dpkg itself installs and removes it, in an empty scratch system of its own.
admin="$work/system/var/lib/dpkg"
mkdir -p "$admin/info" "$admin/updates" "$admin/triggers"
touch "$admin/status" "$admin/available"
dpkg_scratch() { dpkg --root="$work/system" --force-not-root --log=/dev/null "$@" >>"$work/dpkg.log" 2>&1; }
if dpkg_scratch -i "$deb"; then
  [ "$("$work/system/usr/bin/togmal" --version)" = "$version" ] || fail "installed togmal --version"
  dpkg_scratch -r togmal || fail "dpkg -r togmal"
  left=$(find "$work/system" -path "$admin" -prune -o -type f -print)
  [ -z "$left" ] || fail "dpkg -r left files behind: $left"
else
  cat "$work/dpkg.log" >&2
  fail "dpkg -i"
fi

if [ "$failures" -gt 0 ]; then
  echo "--- dpkg-deb -I" >&2; cat "$work/info" >&2
  echo "--- dpkg-deb -c" >&2; cat "$work/contents" >&2
  exit 1
fi
echo "ok: $(basename "$deb") ($(stat -c %s "$deb") bytes)"
