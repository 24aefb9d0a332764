#!/usr/bin/env python3
"""sonde's rules about where things happen in the source (docs/architecture.md,
"Rules the suite checks"). Each rule is one ctest test (label unit):

  records        a record's fields are read and written only in src/format/
                 (its views, its sample layout): no pointer arithmetic into a
                 record's bytes, no fixed record struct, no sample field offset
                 elsewhere in src/ or cli/
  process-state  setenv/setrlimit/sigaction/signal only in cli/ and
                 src/kernel/ (no exceptions)
  elf            ELF facts come from ElfFile: libelf is called (and its
                 headers included) only in src/elf/; other modules hand an
                 ElfFile's handle to libdw at most
  stderr         the library writes to stderr only through util/diagnostics
  function-length  no function in src/ or cli/ over 80 lines
  selftest       each rule above catches a known violation (a rule that
                 matches nothing would pass every tree)

Usage: source_rules.py RULE SOURCE_DIR. Prints each violation, exits 1 if any.
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 80

# Known exceptions, each with its reason. A rule's exception that no longer
# matches anything fails too, so the list only shrinks.
EXCEPTIONS = {}


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        m = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = ")" + m.group(1) + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        c = text[i]
        if c == '"' or (c == "'" and not (i > 0 and (text[i - 1].isalnum()))):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def sources(root, dirs, exclude=()):
    """The C and C++ files below each of `dirs`. A folder that is missing or
    holds none fails the rule: a wrong root must not pass as a clean tree."""
    found = []
    for d in dirs:
        top = os.path.join(root, d)
        if not os.path.isdir(top):
            sys.exit(f"{top}: no such folder (source_rules.py RULE SOURCE_DIR)")
        in_dir = []
        for dirpath, _, files in sorted(os.walk(top)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".h", ".c")) or f.endswith(".bpf.c") or f.endswith(".bpf.h"):
                    continue
                in_dir.append(os.path.relpath(os.path.join(dirpath, f), root))
        if not in_dir:
            sys.exit(f"{top}: no C or C++ file to check")
        found += [rel for rel in in_dir if not any(rel.startswith(e) for e in exclude)]
    return found


def grep(root, files, patterns):
    found = []
    for rel in files:
        with open(os.path.join(root, rel), errors="replace") as f:
            code = strip_comments_and_strings(f.read())
        for no, line in enumerate(code.split("\n"), 1):
            for why, pat in patterns:
                if re.search(pat, line):
                    found.append((rel, no, why, line.strip()))
    return found


RECORD = r"\b(rec|record|sample|raw_record)\w*"
RECORD_PATTERNS = [
    ("a record's bytes at an offset", RECORD + r"\s*\.\s*(bytes\s*\.\s*)?data\s*\(\s*\)\s*\+"),
    ("a record's bytes at an offset", RECORD + r"\s*\.\s*bytes\s*\[\s*\d"),
    ("a record field loaded", r"\bload\s*<[^>]*>\s*\(\s*" + RECORD + r"\s*\."),
    ("a record copied into a struct", r"\bmemcpy\s*\(\s*&\w+\s*,\s*" + RECORD + r"\s*\.\s*(bytes\s*\.\s*)?data\s*\(\s*\)\s*\+"),
    ("a fixed record struct outside src/format",
     r"\b(Mmap2Fixed|MmapFixed|CommFixed|ForkExit|KsymbolFixed|BpfEvent|LostSamples|BuildIdRecordFixed|EventUpdateFixed)\s+\w+\s*[;{=]"),
    ("a sample field offset outside src/format", r"\bsample_field_offset\s*\("),
]
PROCESS_PATTERNS = [
    ("process-wide state", r"(?<![\w.>])(::\s*)?(setenv|unsetenv|putenv|clearenv|setrlimit|prlimit|sigaction|signal|sigset|bsd_signal)\s*\("),
]
ELF_PATTERNS = [
    ("libelf called outside src/elf", r"\b(gelf_\w+|elf_(begin|memory|end|kind|version|next_?scn|getscn|getphdrnum|getshdrnum|getshdrstrndx|strptr|rawdata|getdata|getdata_rawchunk|rawfile|getident|errmsg))\s*\("),
    ("libelf included outside src/elf", r"#\s*include\s*<(gelf|libelf)\.h>"),
]
STDERR_PATTERNS = [
    ("stderr written by the library", r"\b(stderr|STDERR_FILENO|std::cerr|std::clog|perror)\b"),
]


def function_lengths(root, rel):
    """(lines, first line, signature) of each function body that is not inside another."""
    with open(os.path.join(root, rel), errors="replace") as f:
        return function_lengths_in(f.read())


# A brace initializer in a constructor's member-initializer list: the head
# has the parameter list's ')', then a lone ':', and ends with the member's
# (or base's) name.
CTOR_INIT_BRACE = re.compile(r"\)[^;]*(?<!:):(?!:)[^;]*[\w>]$")


def in_member_init(stack):
    return any(kind == "member-init" for kind, _, _ in stack)


def function_lengths_in(text):
    code = strip_comments_and_strings(text)
    stack, result = [], []
    line, head_from = 1, 0
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = " ".join(code[head_from:i].split())
            if any(kind != "scope" for kind, _, _ in stack):
                kind = "inner"
            elif re.search(r"\b(namespace|class|struct|union|enum)\b[^()]*$", head) or head.startswith('extern ""'):
                kind = "scope"
            elif CTOR_INIT_BRACE.search(head):
                kind = "member-init"
            elif ")" in head and not re.search(r"=\s*$", head):
                kind = "function"
            else:
                kind = "inner"
            stack.append((kind, line, head))
            if not in_member_init(stack):
                head_from = i + 1
        elif c == "}":
            if stack:
                kind, first, head = stack.pop()
                if kind == "function":
                    result.append((line - first + 1, first, head))
                if kind == "member-init" or in_member_init(stack):
                    continue  # the constructor's head goes on to its body's '{'
            head_from = i + 1
        elif c == ";":
            head_from = i + 1
    return result


# What each rule must catch, so that none passes by matching nothing: the
# 'selftest' rule runs the rules' own code on these.
SELFTEST_LINES = {
    "records": ["auto pid = load<uint32_t>(rec.bytes.data() + 8);", "uint8_t b = record.bytes[16];",
                "memcpy(&m, rec.data() + 8, sizeof m);", "Mmap2Fixed m{};", "size_t at = sample_field_offset(t, x);"],
    "process-state": ["::setenv(\"X\", \"1\", 1);", "setrlimit(RLIMIT_MEMLOCK, &r);", "sigaction(SIGINT, &sa, nullptr);"],
    "elf": ["Elf* e = elf_begin(fd, ELF_C_READ, nullptr);", "#include <gelf.h>", "gelf_getehdr(e, &h);"],
    "stderr": ["std::cerr << x;", "fprintf(stderr, \"x\");"],
}
BODY = "  x += 1;\n" * (MAX_FUNCTION_LINES - 1)
# (source, the function lengths it must give)
SELFTEST_FUNCTIONS = [
    ("void f() {\n" + BODY + "}\n", [MAX_FUNCTION_LINES + 1]),
    ("namespace a {\nclass C {\n  int g(int x) const {\n" + BODY + "  }\n};\n}\n", [MAX_FUNCTION_LINES + 1]),
    ("C::C(int v) : a_{v}, b_(v), c_{} {\n" + BODY + "}\n", [MAX_FUNCTION_LINES + 1]),
    ("C::C() : Base{1} {\n  auto l = [] { return 1; };\n" + BODY + "}\n", [MAX_FUNCTION_LINES + 2]),
    ('const char* k = R"({\n\n})";\nconstexpr int t[] = {\n1,\n2};\nint h() { return 1; }\n', [1]),
    ("auto f() -> std::vector<int> {\n  return {1};\n}\nenum class E : uint8_t {\n a,\n};\n", [3]),
]


def selftest():
    """The violations each rule finds in SELFTEST_*: a rule that misses one is broken."""
    found = []
    for rule, samples in SELFTEST_LINES.items():
        patterns = {"records": RECORD_PATTERNS, "process-state": PROCESS_PATTERNS, "elf": ELF_PATTERNS,
                    "stderr": STDERR_PATTERNS}[rule]
        for text in samples:
            code = strip_comments_and_strings(text)
            if not any(re.search(pat, code) for _, pat in patterns):
                found.append(("source_rules.py", 0, f"'{rule}' misses", text))
    for source, expected in SELFTEST_FUNCTIONS:
        got = [n for n, _, _ in function_lengths_in(source)]
        if got != expected:
            found.append(("source_rules.py", 0, f"function-length measures {got}, not {expected}", source[:60]))
    return found


def main():
    rule, root = sys.argv[1], sys.argv[2]
    if rule == "selftest":
        found = selftest()
    elif rule == "records":
        found = grep(root, sources(root, ["src", "cli"], exclude=("src/format/",)), RECORD_PATTERNS)
    elif rule == "process-state":
        found = grep(root, sources(root, ["src"], exclude=("src/kernel/",)), PROCESS_PATTERNS)
    elif rule == "elf":
        found = grep(root, sources(root, ["src", "cli"], exclude=("src/elf/",)), ELF_PATTERNS)
    elif rule == "stderr":
        found = grep(root, sources(root, ["src"], exclude=("src/util/diagnostics.cpp",)), STDERR_PATTERNS)
    elif rule == "function-length":
        found = []
        for rel in sources(root, ["src", "cli"]):
            for n, first, head in function_lengths(root, rel):
                if n > MAX_FUNCTION_LINES:
                    found.append((rel, first, f"a function of {n} lines", head[-100:]))
    else:
        sys.exit(f"unknown rule {rule}")
    allowed = EXCEPTIONS.get(rule, {})
    used = set()
    bad = 0
    for rel, no, why, text in found:
        if rel in allowed:
            used.add(rel)
            continue
        bad += 1
        print(f"{rel}:{no}: {why}: {text}")
    for rel in sorted(set(allowed) - used):
        bad += 1
        print(f"{rel}: listed as an exception to '{rule}' but breaks no rule: remove it from source_rules.py")
    if bad:
        print(f"{bad} violation(s) of '{rule}' (tests/rules/source_rules.py)")
        sys.exit(1)


if __name__ == "__main__":
    main()
