#!/usr/bin/env python3
"""Man pages and shell completion for qeli from the sources users already read.

  qeli(8)        from the binary's own `qeli --help` and `qeli SUB --help` (every
                 subcommand, option and default exactly as the binary has them), plus
                 the fixed sections below (files, signals, exit status, environment);
  qeli.conf(5)   from docs/CONFIG.md (headings, tables, lists, code), converted to roff;
  qeli.bash, _qeli   bash and zsh completion from the same --help output.

Run by the build (packaging/CMakeLists.txt):
  gen_man.py --qeli build/release/qeli --config-md docs/CONFIG.md --version 0.1.0 --out DIR
"""
import argparse
import os
import re
import subprocess
import sys

DATE = "2026-12-01"


ROFF_GLYPHS = {"—": "\\(em", "–": "\\(en", "≤": "\\(<=", "≥": "\\(>=", "→": "\\(->",
               "←": "\\(<-", "×": "\\(mu", "±": "\\(+-", "≈": "\\(~~", "…": "...", "’": "'",
               "“": "\\(lq", "”": "\\(rq", "•": "\\(bu", "µ": "\\(mc"}


def roff_escape(text):
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    # Plain ASCII out: named glyphs, else \[uXXXX] (groff without preconv reads bytes).
    text = "".join(ROFF_GLYPHS.get(ch, ch if ord(ch) < 128 else "\\[u%04X]" % ord(ch))
                   for ch in text)
    # A line starting with . or ' would be a request.
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def inline_md(text):
    """Markdown inline markup -> roff font changes (after escaping)."""
    text = roff_escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return text


# --- qeli --help parsing --------------------------------------------------------------

def run_help(qeli, args):
    out = subprocess.run([qeli] + args + ["--help"], capture_output=True, text=True,
                         timeout=30)
    if out.returncode != 0:
        sys.exit(f"gen_man: {' '.join([qeli] + args)} --help exited {out.returncode}: "
                 f"{out.stderr.strip()}")
    return out.stdout


def parse_help(text):
    """CLI11 help -> {description, usage, sections: {name: [(spec, desc)]}}."""
    lines = text.rstrip("\n").split("\n")
    result = {"description": "", "usage": "", "sections": {}}
    section = None
    for line in lines:
        if line.startswith("Usage:"):
            result["usage"] = line[len("Usage:"):].strip()
            continue
        m = re.match(r"^([A-Z][A-Za-z ]*):\s*$", line)
        if m:
            section = m.group(1)
            result["sections"][section] = []
            continue
        if section is None:
            if line.strip() and not result["description"]:
                result["description"] = line.strip()
            continue
        if not line.strip():
            continue
        m = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", line)
        if line.startswith("    ") and result["sections"][section]:
            # a description continued on its own line
            spec, desc = result["sections"][section][-1]
            result["sections"][section][-1] = (spec, (desc + " " + line.strip()).strip())
        elif m:
            result["sections"][section].append((m.group(1).strip(), (m.group(2) or "").strip()))
    return result


def option_names(spec):
    """'-c,--config TEXT=/etc/x' -> ['-c', '--config'], takes_value."""
    head = spec.split(" ")[0]
    names = [n for n in head.split(",") if n.startswith("-")]
    return names, " " in spec


# --- qeli(8) --------------------------------------------------------------------------

FIXED_SECTIONS = r"""
.SH FILES
.TP
.B /etc/qeli/server.conf
Server configuration (qeli.conf(5)); \fBqeli server \-c\fR to use another.
.TP
.B /etc/qeli/users.conf
Users file (\fBauth.users_file\fR); \fBqeli add\-client\fR appends to it.
.TP
.B /etc/qeli/identity/PROFILE.key
Each profile's private identity key (32 bytes, mode 0600, root's).
.TP
.B /etc/qeli/clients/NAME.conf
The config of the client unit \fBqeli\-client@NAME.service\fR.
.TP
.B /var/lib/qeli/known_hosts, /var/lib/qeli/device\-id
The client's pinned server keys (TOFU) and its device id.
.TP
.B /var/lib/qeli/journal\-DEV.log
The client's journal of host changes (routes, DNS, kill switch), undone after a crash.
.TP
.B /run/qeli/control.sock
The server's control socket (list\-clients, kick, ...).
.TP
.B /run/qeli/client\-DEV.sock
A running client's status socket (\fBqeli status\fR).
.SH SIGNALS
.TP
.B SIGHUP
Server: re\-read the config; on any error keep the running one, else replace the users
without dropping sessions and apply [logging]. Server and client: open the log file
again (logrotate). \fBsystemctl reload qeli\-server\fR sends it.
.TP
.B SIGTERM, SIGINT
Stop: sessions end (the client tells the server), TUNs, routes, DNS and NAT are undone.
.SH ENVIRONMENT
.TP
.B QELI_LOG_LEVEL
Overrides [logging] level (error, warn, info, debug, trace).
.TP
.B QELI_KNOWN_HOSTS, QELI_DEVICE_ID_FILE
The client's known_hosts and device id files.
.TP
.B QELI_DISABLE_EXTENSIONS=1
Behave exactly like qeli 0.7.16 on the wire (no negotiated extensions).
.TP
.B JOURNAL_STREAM, NOTIFY_SOCKET, WATCHDOG_USEC
Set by systemd: log lines go to the journal with structured fields, readiness and the
watchdog are reported.
.SH EXIT STATUS
0 on success, 1 when the command failed (a bad config, a refused request, a fatal
error), 2 for a command\-line usage error.
.SH SEE ALSO
.BR qeli.conf (5),
.BR systemd.service (5),
.BR journalctl (1),
/usr/share/doc/qeli/OPERATIONS.md.gz
"""


def man_qeli(qeli, version):
    top = parse_help(run_help(qeli, []))
    subs = top["sections"].get("Subcommands", [])
    if not subs:
        sys.exit("gen_man: `qeli --help` lists no subcommands")
    out = [f'.TH QELI 8 "{DATE}" "qeli {version}" "System Administration"',
           ".SH NAME", "qeli \\- self\\-hosted layer\\-3 VPN server and client",
           ".SH SYNOPSIS", ".B qeli", "\\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR]", ".br",
           ".B qeli \\-\\-version",
           ".SH DESCRIPTION", inline_md(top["description"]) + ".",
           "One binary runs the server (\\fBqeli server\\fR), the client (\\fBqeli client\\fR) and"
           " the management commands, which talk to a running server over its local control"
           " socket. The configuration format is described in \\fBqeli.conf\\fR(5).",
           ".SH COMMANDS"]
    details = {}
    for name, desc in subs:
        h = parse_help(run_help(qeli, [name]))
        details[name] = h
        out.append(f".SS {roff_escape('qeli ' + name)}")
        out.append(inline_md(desc or h["description"]))
        if h["usage"]:
            out.append(".PP")
            out.append(".B Usage:")
            out.append(roff_escape(h["usage"]))
        for sec in ("Positionals", "Options"):
            for spec, d in h["sections"].get(sec, []):
                if spec.startswith("-h,--help"):
                    continue
                out.append(".TP")
                out.append(f"\\fB{roff_escape(spec)}\\fR")
                out.append(inline_md(d) if d else "")
    out.append(FIXED_SECTIONS.strip())
    return "\n".join(out) + "\n", subs, details


# --- qeli.conf(5) from docs/CONFIG.md --------------------------------------------------

def table_row(line):
    """Cells of a Markdown table row; a `|` inside `code` is part of the cell."""
    cells, cell, code = [], "", False
    for ch in line.strip().strip("|"):
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += ch
    cells.append(cell.strip())
    return cells


def man_conf(md_path, version):
    with open(md_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = [f'.TH QELI.CONF 5 "{DATE}" "qeli {version}" "File Formats"',
           ".SH NAME", "qeli.conf \\- configuration of the qeli VPN server and client"]
    i = 0
    header = None
    in_code = False
    first_heading = True
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_code = not in_code
            out.append(".PP\n.nf\n.RS 4" if in_code else ".RE\n.fi")
            i += 1
            continue
        if in_code:
            out.append(roff_escape(line) if line else "")
            i += 1
            continue
        if line.startswith("# "):
            if first_heading:
                out.append(".SH DESCRIPTION")
                first_heading = False
            i += 1
            continue
        if line.startswith("## "):
            out.append(".SH " + roff_escape(re.sub(r"^\d+\.\s*", "", line[3:]).replace("`", "").upper()))
            i += 1
            continue
        if line.startswith("### "):
            out.append(".SS " + roff_escape(re.sub(r"^[\d.]+\s*", "", line[4:]).replace("`", "")))
            i += 1
            continue
        if line.startswith("|"):
            if header is None:
                header = table_row(line)
                i += 2 if i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|?$", lines[i + 1]) else 1
                continue
            cells = table_row(line)
            key = cells[0] if cells else ""
            out.append(".TP")
            out.append(inline_md(key))
            rest = []
            for name, cell in zip(header[1:], cells[1:]):
                if not cell:
                    continue
                rest.append(inline_md(cell) if name.lower() in ("range / notes", "values", "notes",
                                                               "what", "result")
                            else f"{roff_escape(name)}: {inline_md(cell)}")
            out.append(". ".join(rest) if rest else "")
            i += 1
            continue
        header = None
        if re.match(r"^\s*[*-] ", line):
            text = re.sub(r"^\s*[*-] ", "", line)
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and not re.match(r"^\s*[*-] ", lines[i]):
                text += " " + lines[i].strip()
                i += 1
            out.append(".IP \\(bu 2")
            out.append(inline_md(text))
            continue
        if re.match(r"^\d+\. ", line):
            out.append(".IP " + line.split(".")[0] + ". 4")
            out.append(inline_md(re.sub(r"^\d+\. ", "", line)))
            i += 1
            continue
        if not line.strip():
            out.append(".PP")
            i += 1
            continue
        out.append(inline_md(line))
        i += 1
    out.append(".SH SEE ALSO\n.BR qeli (8)")
    # Collapse runs of paragraph breaks.
    text = "\n".join(out) + "\n"
    text = re.sub(r"(\.PP\n)+", ".PP\n", text)
    text = re.sub(r"\.PP\n(\.(SH|SS|TP|IP) )", r"\1", text)
    return text


# --- completion -----------------------------------------------------------------------

def bash_completion(subs, details):
    cases = []
    for name, _ in subs:
        opts = []
        for spec, _ in details[name]["sections"].get("Options", []):
            names, _ = option_names(spec)
            opts.extend(names)
        cases.append(f"    {name}) opts=\"{' '.join(opts)}\" ;;")
    names = " ".join(n for n, _ in subs)
    return f"""# bash completion for qeli (generated by scripts/gen_man.py from qeli --help)
_qeli() {{
  local cur prev sub opts
  cur="${{COMP_WORDS[COMP_CWORD]}}"
  prev="${{COMP_WORDS[COMP_CWORD-1]}}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{names} --version --help" -- "$cur"))
    return
  fi
  sub="${{COMP_WORDS[1]}}"
  case "$prev" in
    -c|--config|--identity-dir|--known-hosts|--device-id-file|--state-dir|--socket|--status-socket|--users-file)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$sub" in
{chr(10).join(cases)}
    *) opts="" ;;
  esac
  COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
  [ "${{#COMPREPLY[@]}}" -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
}}
complete -F _qeli qeli
"""


def zsh_escape(s):
    return s.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh_completion(subs, details):
    sub_list = "\n".join(f"    '{n}:{zsh_escape(d)[:70]}'" for n, d in subs)
    cases = []
    for name, _ in subs:
        specs = []
        for spec, d in details[name]["sections"].get("Options", []):
            names, takes = option_names(spec)
            if "--help" in names:
                continue
            desc = zsh_escape(d.split(". ")[0][:60])
            value = ":value:_files" if takes else ""
            for n in names:
                specs.append(f"'{n}[{desc}]{value}'")
        cases.append(f"    {name}) _arguments {' '.join(specs) or ''} '*:file:_files' ;;")
    return f"""#compdef qeli
# zsh completion for qeli (generated by scripts/gen_man.py from qeli --help)
_qeli() {{
  local -a subcommands
  subcommands=(
{sub_list}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'qeli subcommand' subcommands
    return
  fi
  case "$words[2]" in
{chr(10).join(cases)}
  esac
}}
_qeli "$@"
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qeli", required=True)
    ap.add_argument("--config-md", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    page, subs, details = man_qeli(a.qeli, a.version)
    files = {"qeli.8": page, "qeli.conf.5": man_conf(a.config_md, a.version),
             "qeli.bash": bash_completion(subs, details), "_qeli": zsh_completion(subs, details)}
    for name, text in files.items():
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
