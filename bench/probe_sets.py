#!/usr/bin/env python3
"""Runs a probe set through `togmal hook` and tallies what the host was told.

A probe set is JSON lines, one Claude Code PreToolUse input per line with its
expectation: {"id", "expect", "input": {...}, "class"?}. Attack sets expect
"deny" or "not_allow"; everyday sets expect "silent" or "prompt_ok". Each line
runs as a new hook process, as Claude Code runs it, with togmal's settings and
database in a throwaway folder, so nothing of the person running this leaks in.
HOME is the persona's (/home/NAME from the call's cwd, else the throwaway
folder): a HOME under /tmp would make `~` a scratch folder, and `cd ~ && rm -rf
x` would be asked where the writer's machine denies it.

    bench/probe_sets.py build/dev/togmal /path/attacks.jsonl [--misses]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile


def answer_of(stdout: str) -> str:
    """allow | pass | ask | deny from the hook's stdout (Claude Code's format)."""
    text = stdout.strip()
    if not text:
        return "pass"
    out = json.loads(text)
    decision = out.get("hookSpecificOutput", {}).get("permissionDecision")
    return decision or "pass"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("togmal")
    parser.add_argument("probe_set")
    parser.add_argument("--misses", action="store_true", help="print each miss")
    parser.add_argument("--profile", default=None, help="settings.yaml profile: standard|strict")
    args = parser.parse_args()
    probes = [json.loads(line) for line in open(args.probe_set) if line.strip()]
    with tempfile.TemporaryDirectory() as home:
        env = {"HOME": home, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": os.path.join(home, ".config"),
               "XDG_DATA_HOME": os.path.join(home, ".local/share")}
        if args.profile:
            os.makedirs(os.path.join(home, ".config/togmal"))
            with open(os.path.join(home, ".config/togmal/settings.yaml"), "w") as f:
                f.write(f"profile: {args.profile}\n")
        tally = collections.Counter()
        by_class = collections.defaultdict(collections.Counter)
        misses = []
        for probe in probes:
            parts = probe["input"].get("cwd", "").split("/")
            persona = "/home/" + parts[2] if len(parts) > 2 and parts[1] == "home" and parts[2] else home
            run = subprocess.run([args.togmal, "hook"], input=json.dumps(probe["input"]),
                                 capture_output=True, text=True, env={**env, "HOME": persona},
                                 timeout=30)
            got = answer_of(run.stdout)
            expect = probe["expect"]
            if expect == "deny":
                ok = got == "deny"
                held = got != "allow"
            elif expect == "not_allow":
                ok = held = got != "allow"
            elif expect == "silent":
                ok = held = got in ("allow", "pass")
            else:  # prompt_ok: anything but a deny
                ok = held = got != "deny"
            tally[(expect, got)] += 1
            by_class[probe.get("class", probe["input"].get("tool_name", "?"))][ok] += 1
            if not ok:
                misses.append((probe["id"], expect, got, probe["input"].get("tool_name"),
                               json.dumps(probe["input"].get("tool_input"))[:160]))
    print(f"{len(probes)} probes from {args.probe_set}")
    for (expect, got), count in sorted(tally.items()):
        print(f"  expect {expect:9} got {got:5} {count}")
    attacks = [p for p in probes if p["expect"] in ("deny", "not_allow")]
    if attacks:
        approved = sum(c for (e, g), c in tally.items() if e in ("deny", "not_allow") and g == "allow")
        denied = sum(c for (e, g), c in tally.items() if e == "deny" and g == "deny")
        destructive = sum(1 for p in probes if p["expect"] == "deny")
        classes_missed = sum(1 for c in by_class.values() if c[False])
        print(f"  auto-approved attacks: {approved}/{len(attacks)} ({100 * approved / len(attacks):.1f} %)")
        print(f"  destructive denied: {denied}/{destructive} ({100 * denied / max(destructive, 1):.1f} %)")
        print(f"  classes with a miss: {classes_missed}/{len(by_class)}")
    everyday = [p for p in probes if p["expect"] in ("silent", "prompt_ok")]
    if everyday:
        stops = sum(c for (e, g), c in tally.items() if e in ("silent", "prompt_ok") and g in ("ask", "deny"))
        print(f"  togmal interruptions (ask+deny) in {len(everyday)} everyday calls: {stops}")
    if args.misses:
        for miss in misses:
            print("  MISS", *miss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
