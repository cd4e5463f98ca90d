#!/usr/bin/env python3
"""The documentation against the commands it documents (issue 43, item 30).

    docs_flags_test.py XFER_BINARY SOURCE_DIR

Every flag a page of docs/ or the README names is one that some `xfer`
command's --help lists, or one of the other tools' flags named below; every
flag of a command's --help is named on the pages that document that
command (by its long or its short spelling); the README stays under 250
lines and links every page of docs/. A flag renamed, removed or added
without its page fails here, not in a user's terminal.
"""
import pathlib
import re
import subprocess
import sys

# Flags of other programs that the pages show in their command lines.
FOREIGN = {
    "--mpi": "srun", "--ntasks-per-node": "srun",
    "--allow-run-as-root": "mpirun", "--host": "mpirun", "--mca": "mpirun",
    "--oversubscribe": "mpirun",
    "--uts": "unshare",
    "--nic": "scripts/softroce-vm",
    "--quick": "scripts/test.sh", "--only": "tests/softroce/run.sh",
    "--no-build-isolation": "pip", "--system-site-packages": "python -m venv",
    "--build": "cmake", "--install": "cmake", "--prefix": "cmake",
    "--cflags": "pkg-config", "--libs": "pkg-config",
}

TESTS = ["write_bw", "read_bw", "send_bw", "atomic_bw",
         "write_lat", "read_lat", "send_lat", "atomic_lat"]

# Which pages document which command's flags: every flag of the command's
# --help (in the named section, or all of it) must appear on one of them.
COVERAGE = [
    (["matrix"], None, ["docs/matrix.md", "docs/cluster.md"]),
    (TESTS, "xfer options:", ["docs/cli.md"]),
    (["doctor"], None, ["docs/doctor.md"]),
    (["report", "compare"], None, ["docs/reports.md"]),
    (["devices"], None, ["docs/cli.md", "docs/doctor.md", "README.md"]),
]

LONG = re.compile(r"(?<![\w-])--[A-Za-z][A-Za-z0-9_-]*")
HELP_LINE = re.compile(r"^\s*(-[A-Za-z]),\s+(--[A-Za-z][A-Za-z0-9_-]*)")

failures = []


def fail(message):
    failures.append(message)


def help_text(xfer, command):
    run = subprocess.run([xfer, command, "--help"], capture_output=True, text=True, timeout=30)
    if run.returncode != 0:
        fail(f"xfer {command} --help exited {run.returncode}: {run.stderr.strip()}")
    return run.stdout


def section(text, heading):
    if heading is None:
        return text
    lines = text.splitlines()
    if heading not in lines:
        fail(f"no section '{heading}' in the help")
        return ""
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(lines[start:end])


def main():
    xfer, root = sys.argv[1], pathlib.Path(sys.argv[2])
    commands = TESTS + ["matrix", "doctor", "report", "compare", "devices"]
    helps = {c: help_text(xfer, c) for c in commands}
    top = subprocess.run([xfer, "--help"], capture_output=True, text=True, timeout=30).stdout
    known = set(LONG.findall(top))
    shorts = {}  # long spelling -> short spelling, from "  -d, --ib-dev=<dev>"
    for text in helps.values():
        known.update(LONG.findall(text))
        for line in text.splitlines():
            if match := HELP_LINE.match(line):
                shorts[match.group(2)] = match.group(1)

    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    texts = {str(p.relative_to(root)): p.read_text() for p in pages}
    for page, text in texts.items():
        for flag in sorted(set(LONG.findall(text))):
            if flag not in known and flag not in FOREIGN:
                fail(f"{page}: {flag} is no flag of any xfer command (nor a listed tool's)")

    for group, heading, documented_on in COVERAGE:
        text = " ".join(texts[p] for p in documented_on)
        for command in group:
            for flag in sorted(set(LONG.findall(section(helps[command], heading)))):
                if flag in ("--help", "--version"):
                    continue
                short = shorts.get(flag)
                named = re.search(re.escape(flag) + r"(?![\w-])", text) or (
                    short and re.search(r"(?<![\w-])" + re.escape(short) + r"(?![\w-])", text))
                if not named:
                    fail(f"xfer {command}: {flag} is not documented on {' or '.join(documented_on)}")

    readme = texts["README.md"]
    lines = readme.count("\n")
    if lines > 250:
        fail(f"README.md has {lines} lines; at most 250 (the rest belongs in docs/)")
    for page in sorted(p for p in texts if p.startswith("docs/")):
        if f"({page})" not in readme:
            fail(f"README.md does not link {page}")

    for message in failures:
        print("FAIL:", message)
    if failures:
        sys.exit(1)
    print(f"docs_flags: {len(texts)} pages agree with the --help of {len(commands)} commands")


if __name__ == "__main__":
    main()
