#!/usr/bin/env python3
"""A strict reader of the Prometheus text exposition format 0.0.4, for the metrics e2e.

Usage: check_exposition.py FILE  — exits 1 with the first violation, else prints one
`name{labels} value` line per sample with labels sorted (easy to grep and compare).

Checked beyond promtool's parse: every family has exactly one HELP and one TYPE line,
both before its samples; a family's samples are contiguous; no series twice; label names
and escapes as the format allows; values parse as floats; the file ends with a newline.
"""
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r'"(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL}={VALUE})(?:,{LABEL}={VALUE})*)?,?\}})? (\S+)(?: (-?\d+))?$")
PAIR = re.compile(rf"({LABEL})=({VALUE})")


def fail(line_no, why):
    sys.exit(f"line {line_no}: {why}")


def main(path):
    text = open(path, encoding="utf-8").read()
    if not text.endswith("\n"):
        fail(0, "no final newline")
    families = {}  # name -> {"help", "type", "closed"}
    current = None
    series = set()
    out = []
    for no, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("#"):
            m = re.match(rf"^# (HELP|TYPE) ({NAME}) (.*)$", line)
            if not m:
                if line.startswith("# HELP") or line.startswith("# TYPE"):
                    fail(no, f"malformed: {line!r}")
                continue  # a plain comment
            kind, name, rest = m.groups()
            fam = families.setdefault(name, {"help": 0, "type": 0, "samples": 0, "closed": False})
            if fam["closed"] or fam["samples"]:
                fail(no, f"{kind} for {name} after its samples or in a second block")
            if current is not None and current != name:
                families[current]["closed"] = True
            current = name
            if kind == "TYPE":
                if rest not in ("counter", "gauge", "histogram", "summary", "untyped"):
                    fail(no, f"unknown type {rest!r}")
                fam["type"] += 1
                fam["kind"] = rest
            else:
                if re.search(r"\\[^\\n]", rest.replace("\\\\", "")):
                    fail(no, "bad escape in HELP")
                fam["help"] += 1
            if fam["type"] > 1 or fam["help"] > 1:
                fail(no, f"second {kind} line for {name}")
            continue
        if not line:
            fail(no, "empty line")
        m = SAMPLE.match(line)
        if not m:
            fail(no, f"not a sample line: {line!r}")
        name, labels, value, _ts = m.groups()
        if name not in families or families[name]["type"] != 1 or families[name]["help"] != 1:
            fail(no, f"{name}: sample before its HELP and TYPE")
        if current != name:
            fail(no, f"{name}: its samples are not together")
        if families[name]["kind"] == "counter" and not name.endswith("_total"):
            fail(no, f"counter {name} without _total")
        families[name]["samples"] += 1
        pairs = sorted(PAIR.findall(labels or ""))
        names = [p[0] for p in pairs]
        if len(set(names)) != len(names):
            fail(no, "a label twice")
        if any(n.startswith("__") for n in names):
            fail(no, "reserved label name")
        try:
            float(value.replace("Inf", "inf"))
        except ValueError:
            fail(no, f"bad value {value!r}")
        key = name + ("{" + ",".join(f"{k}={v}" for k, v in pairs) + "}" if pairs else "")
        if key in series:
            fail(no, f"{key} twice")
        series.add(key)
        out.append(f"{key} {value}")
    for name, fam in families.items():
        if fam["type"] != 1 or fam["help"] != 1:
            fail(0, f"{name}: needs one HELP and one TYPE")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
