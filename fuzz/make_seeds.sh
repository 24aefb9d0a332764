#!/usr/bin/env bash
# Seeds for the harnesses, made at fuzz time: small valid inputs of each
# format (and the regression corpus), so the fuzzers start past the magic
# numbers. Usage: make_seeds.sh SEED_DIR BUILD_DIR. Best effort: a seed that
# cannot be made here (no perf, no permission to record) is left out.
set -uo pipefail
seeds="$1"
build="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
sonde="$build/cli/sonde"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# A folder for every harness in fuzz/, even one with no seed yet: libFuzzer
# refuses a corpus folder that does not exist.
for src in "$root"/fuzz/fuzz_*.cpp; do
  f=$(basename "$src" .cpp)
  [ "$f" = fuzz_input ] || mkdir -p "$seeds/$f"
done

# sonde probe's texts: the first byte picks the parser (probes file, uprobe_events line, definition).
printf '\000#handle_request id=req->id flags\np:probe_a/handle_request /a:0x12e0 id=+0(%%di):s32 flags=%%si:s32\n%%sdt_p:n=n\np:sdt_p/n /a:0x10(0x20) arg1=%%di:u64\n' >"$seeds/fuzz_probe_text/probes"
printf '\001r:probe_a/f__return /a:0x0000000000001290 arg1=$retval name=+0(+16(-24(%%bp))):string' >"$seeds/fuzz_probe_text/line"
printf '\002g:e=f@a.c:3 req->a.b[2]:x32 n=$retval %%di +8(%%si):u16' >"$seeds/fuzz_probe_text/definition"

# Recordings: the regression corpus, sonde's own (pipe, -z, file mode), perf's.
cp "$root"/tests/corpus/files/*.data "$seeds/fuzz_recording/" 2>/dev/null
if [ -x "$sonde" ]; then
  "$sonde" record -o "$tmp/pipe.data" -F 999 -- /bin/sleep 0.05 >/dev/null 2>&1 && cp "$tmp/pipe.data" "$seeds/fuzz_recording/"
  "$sonde" record -z -g -o "$tmp/z.data" -F 999 -- /bin/sleep 0.05 >/dev/null 2>&1 && cp "$tmp/z.data" "$seeds/fuzz_recording/"
  [ -f "$tmp/pipe.data" ] && "$sonde" convert --to perf -o "$tmp/file.data" -i "$tmp/pipe.data" >/dev/null 2>&1 &&
    cp "$tmp/file.data" "$seeds/fuzz_recording/"
fi
if command -v perf >/dev/null; then
  perf record -q -o "$tmp/perf.data" -F 999 -- /bin/sleep 0.05 >/dev/null 2>&1 && cp "$tmp/perf.data" "$seeds/fuzz_recording/perf.data"
  perf record -q -z -o "$tmp/perfz.data" -F 999 -- /bin/sleep 0.05 >/dev/null 2>&1 && cp "$tmp/perfz.data" "$seeds/fuzz_recording/perfz.data"
  perf record -q -e sched:sched_switch -a -o - -- /bin/sleep 0.02 2>/dev/null >"$tmp/tp.data" && cp "$tmp/tp.data" "$seeds/fuzz_recording/"
fi
find "$seeds/fuzz_recording" -size +1M -delete

# stat streams: sonde's (per task, per CPU with intervals) and perf's (its -a
# CPU_MAP is the range form).
if [ -x "$sonde" ]; then
  "$sonde" stat record -q -o "$seeds/fuzz_stat_stream/task.data" -- /bin/true >/dev/null 2>&1
  "$sonde" stat record -q -a -A -I 20 -e cs -o "$seeds/fuzz_stat_stream/cpus.data" -- /bin/sleep 0.05 >/dev/null 2>&1
fi
if command -v perf >/dev/null; then
  perf stat record --quiet -a -e cs -o - -- /bin/sleep 0.02 2>/dev/null >"$seeds/fuzz_stat_stream/perf_range.data"
fi

# Directories, packed as fuzz_directory's container (u8 count, u32 sizes,
# the files): the regression corpus's, a sonde stream as data and data.0,
# and perf's own --threads directory.
pack_dir() {  # OUT FILE...
  python3 - "$@" <<'PY'
import struct, sys
files = [open(p, "rb").read() for p in sys.argv[2:]]
out = bytes([len(files)]) + b"".join(struct.pack("<I", len(f)) for f in files) + b"".join(files)
open(sys.argv[1], "wb").write(out)
PY
}
for d in "$root"/tests/corpus/files/*.dir; do
  [ -d "$d" ] || continue
  pack_dir "$seeds/fuzz_directory/$(basename "$d")" "$d/data" $(ls "$d" | grep -E '^data\.[0-9]+$' | sort -t. -k2 -n | sed "s|^|$d/|")
done
[ -f "$tmp/pipe.data" ] && pack_dir "$seeds/fuzz_directory/sonde-pipe-twice" "$tmp/pipe.data" "$tmp/pipe.data"
if command -v perf >/dev/null &&
    perf record -q --threads -o "$tmp/threads" -F 999 -- /bin/sleep 0.05 >/dev/null 2>&1; then
  pack_dir "$seeds/fuzz_directory/perf-threads" "$tmp/threads/data" $(ls "$tmp/threads" | grep -E '^data\.[0-9]+$' | sort -t. -k2 -n | sed "s|^|$tmp/threads/|")
fi
find "$seeds/fuzz_directory" -size +1M -delete
  # keep the fuzzer's inputs small

# Tracepoint formats: u16 length, the text, a RAW payload.
for ev in sched/sched_switch sched/sched_process_exec syscalls/sys_enter_openat; do
  fmt="/sys/kernel/tracing/events/$ev/format"
  [ -r "$fmt" ] || continue
  python3 - "$fmt" "$seeds/fuzz_tracepoint/$(basename "$ev")" <<'PY'
import struct, sys
text = open(sys.argv[1], "rb").read()
raw = bytes(range(64))
open(sys.argv[2], "wb").write(struct.pack("<H", len(text)) + text + raw)
PY
done

# SDT argument specs: machine byte (0 x86-64, 1 i386, 2 aarch64), the spec.
python3 - "$seeds/fuzz_sdt_args" <<'PY'
import sys
specs = [(0, "-4@%edi 8@%rax -1@%ah 2@-2(%rbp)"), (0, "8@-16(%rbp,%rax,8) -4@g_i32(%rip) 8@$42"),
         (0, "-8@sym+8(%rip) 4@(%rsi,%rdi,4) 1@%r8b"), (1, "-4@8(%esp) 4@%eax"),
         (2, "-8@[sp, 96] 4@w1 -8@[x1] 8@#5 8@x30")]
for i, (machine, spec) in enumerate(specs):
    open(f"{sys.argv[1]}/spec{i}", "wb").write(bytes([machine]) + spec.encode())
PY

# ELF files: small programs and libraries, and a fixture with SDT notes.
for f in /bin/true /usr/lib/x86_64-linux-gnu/libdl.so.2 "$build/demo/sonde-demo-workload"; do
  [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 1000000 ] && cp "$f" "$seeds/fuzz_elf/$(basename "$f")"
done
if gcc -O1 -o "$tmp/sdt_forms" "$root/tests/fixtures/sdt_forms.c" 2>/dev/null; then
  cp "$tmp/sdt_forms" "$seeds/fuzz_sdt_note/"
  cp "$tmp/sdt_forms" "$seeds/fuzz_elf/"
fi
cp /bin/true "$seeds/fuzz_sdt_note/" 2>/dev/null

# kallsyms text (the head of the running kernel's, and module lines).
if [ -r /proc/kallsyms ]; then head -c 6000 /proc/kallsyms >"$seeds/fuzz_kallsyms/head"; fi
printf 'ffffffff81000000 T _stext\nffffffff81000100 t second\nffffffffc0001000 t mod_fn\t[mod_b]\nffffffff81000500 W weak\n' \
  >"$seeds/fuzz_kallsyms/small"

# A kallsyms index (version 1, wide and narrow) behind its u16-prefixed text.
python3 - "$seeds/fuzz_kallsyms_index" <<'PY'
import struct, sys
text = b"ffffffff81000000 T _stext\nffffffff81000100 t second\nffffffffc0000000 t mod_fn\t[mod_a]\n"
mods = struct.pack("<QQI", 0xffffffffc0000000, 0xffffffffc0000100, 5) + b"mod_a"
mods += bytes((8 - len(mods) % 8) % 8)
pos = [17, 43, 69]
for narrow in (0, 1):
    base = 0xffffffff81000000
    addrs = [0xffffffff81000000, 0xffffffff81000100, 0xffffffffc0000000]
    keys = b"".join(struct.pack("<I", a - base) for a in addrs) if narrow else b"".join(struct.pack("<Q", a) for a in addrs)
    head = b"SONDEKSI" + struct.pack("<IIQQQQQQ", 1, narrow, len(text), 0, base, 3, 1, len(mods))
    idx = head + keys + b"".join(struct.pack("<I", p) for p in pos) + mods
    open(f"{sys.argv[1]}/index{narrow}", "wb").write(struct.pack("<H", len(text)) + text + idx)
PY

# Symbol indexes: the regression corpus's, and real ones sonde writes.
cp "$root"/tests/corpus/files/s*_symbol_index_*.idx "$seeds/fuzz_symbol_index/" 2>/dev/null
if [ -x "$sonde" ]; then
  "$sonde" buildid-cache --buildid-dir "$tmp/index-cache" --index /bin/true /usr/bin/xz >/dev/null 2>&1
  find "$tmp/index-cache" -name sonde-symbols.idx | while read -r f; do cp "$f" "$seeds/fuzz_symbol_index/$(basename "$(dirname "$f")").idx"; done
fi

# perf maps.
printf '7f0000001000 40 jitted_a\n0x7f0000001040 0x20 Interpreter::run(int)\n7f0000002000 1000 [stub]\n' \
  >"$seeds/fuzz_perf_map/small"

# jitdumps: the regression corpus's, a small valid one with every record
# kind, and a real one from node --perf-prof when node is here.
cp "$root"/tests/corpus/files/*.dump "$seeds/fuzz_jitdump/" 2>/dev/null
python3 - "$seeds/fuzz_jitdump/valid" <<'PY'
import struct, sys
def rec(rid, body, t):
    return struct.pack("<IIQ", rid, 16 + len(body), t) + body
out = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 7, 0, 0)
out += rec(2, struct.pack("<QQ", 0x1000, 2) + struct.pack("<Qii", 0x1000, 3, 1) + b"/a.js\0" +
           struct.pack("<Qii", 0x1008, 4, 2) + b"\xff\0", 1)
out += rec(4, struct.pack("<QQQ", 8, 4, 8) + bytes(8), 2)
out += rec(0, struct.pack("<IIQQQQ", 7, 7, 0x1000, 0x1000, 16, 1) + b"f\0" + bytes(16), 3)
out += rec(1, struct.pack("<IIQQQQQ", 7, 7, 0x2000, 0x1000, 0x2000, 16, 1), 4)
out += rec(3, b"", 5)
open(sys.argv[1], "wb").write(out)
PY
# A dump with real unwinding tables (.eh_frame + .eh_frame_hdr): the JIT of
# tests/fixtures/jit_cfi.c.
if gcc -O1 -o "$tmp/jit_cfi" "$root/tests/fixtures/jit_cfi.c" 2>/dev/null; then
  (cd "$tmp" && ./jit_cfi cfi 1 >/dev/null 2>&1)
  for f in "$tmp"/jit-*.dump; do [ -f "$f" ] && cp "$f" "$seeds/fuzz_jitdump/cfi"; done
  rm -f "$tmp"/jit-*.dump
fi
cp "$root"/tests/fleet/corpus/fuzz_store_url/* "$seeds/fuzz_store_url/" 2>/dev/null
cp "$root"/tests/fleet/corpus/fuzz_store_answers/* "$seeds/fuzz_store_answers/" 2>/dev/null
# Fleet store URLs and what a store answers (fuzz_store_answers: the first
# byte picks HTTP answer, chunked body, or the readers' two TSV answers).
printf 'clickhouse://127.0.0.1:8123/prof?service=api&host=web-*&since=2h&until=1700000000&label.zone=e%%2A&build_id=ab' >"$seeds/fuzz_store_url/url"
printf '\000HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n1\t2\n\r\n0\r\n\r\n' >"$seeds/fuzz_store_answers/http"
printf '\001a\r\n0123456789\r\n0\r\n\r\n' >"$seeds/fuzz_store_answers/chunked"
frame=$(printf '0\0371\037/bin/w\037ab12\037main\037main\0371\037w.c\0374010a0\0370a0\0370')
printf '\002cpu-clock\tnanoseconds\t7\t0\tw\t5\t5\t0\t99\t3\t3000\t1700000000\n\000%s\t%s\036%s\n' 99 "$frame" "$frame" >"$seeds/fuzz_store_answers/tsv"
if command -v node >/dev/null; then
  (cd "$tmp" && node --perf-prof -e 'let s = 0; for (let i = 0; i < 1e5; i++) s += i;' >/dev/null 2>&1)
  for f in "$tmp"/jit-*.dump; do [ -f "$f" ] && head -c 60000 "$f" >"$seeds/fuzz_jitdump/node"; done
fi

# A dwarf sample as the recorder lays it out (sample_type, keep, then the
# record): IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN REGS_USER STACK_USER.
python3 - "$seeds/fuzz_sample_cut/dwarf" <<'PY'
import struct, sys
st = 0x10000 | 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | 0x20 | 0x1000 | 0x2000
regs = [0] * 20
body = struct.pack('<QQQQQQ', 77, 0x401000, (12 << 32) | 11, 5000, 1, 250)
body += struct.pack('<QQQ', 2, 0xffffffff81000000, 0x401000)
body += struct.pack('<Q', 2) + struct.pack('<20Q', *regs)
body += struct.pack('<Q', 256) + b'\x51' * 256 + struct.pack('<Q', 200)
rec = struct.pack('<IHH', 9, 2, 8 + len(body)) + body
open(sys.argv[1], 'wb').write(struct.pack('<QH', st, 64) + rec)
PY
exit 0
