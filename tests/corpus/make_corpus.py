#!/usr/bin/env python3
"""Writes the hand-made hostile inputs of tests/corpus/files (run once; the
outputs are committed, each a few bytes to a few KiB). Every file reproduces
one finding of issue 10 or of a fuzzing run; corpus_test.cpp holds what sonde
must do with it. Layouts: docs/format.md and src/format/perf_abi.h."""
import os
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")

PIPE_HEADER = b"PERFILE2" + struct.pack("<Q", 16)
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_PERIOD, SAMPLE_RAW = 1, 2, 4, 0x100, 0x400
SAMPLE_ID_ALL = 1 << 18  # attr flags bit


def record(rtype, body, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def attr(etype, config, sample_type, flags=SAMPLE_ID_ALL, size=128):
    head = struct.pack("<IIQQQQQ", etype, size, config, 1, sample_type, 0, flags)
    return head + bytes(size - len(head))


def header_attr(a, ids):
    return record(64, a + b"".join(struct.pack("<Q", i) for i in ids))


def event_update_name(event_id, name):
    raw = name.encode() + b"\0"
    raw += bytes((8 - len(raw) % 8) % 8)
    return record(78, struct.pack("<QQ", 2, event_id) + raw)


def tracing_data(system, fmt):
    blob = b"\x17\x08\x44tracing" + b"0.6\0" + struct.pack("<BBI", 0, 8, 4096)
    for name in (b"header_page", b"header_event"):
        blob += name + b"\0" + struct.pack("<Q", 0)
    blob += struct.pack("<I", 0)                      # no ftrace formats
    blob += struct.pack("<I", 1) + system + b"\0" + struct.pack("<I", 1)
    blob += struct.pack("<Q", len(fmt)) + fmt
    blob += bytes((8 - len(blob) % 8) % 8)
    return record(66, struct.pack("<II", len(blob), 0)) + blob


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def f1_data_loc_wrap():
    fmt = (b"name: hostile\nID: 1000\nformat:\n"
           b"\tfield:__data_loc char[] s;\toffset:4294967295;\tsize:4;\tsigned:0;\n"
           b"\tfield:int n;\toffset:0;\tsize:4;\tsigned:1;\n\nprint fmt: \"%s\"\n")
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_RAW
    out = PIPE_HEADER + header_attr(attr(2, 1000, st), [1]) + event_update_name(1, "sonde:hostile")
    out += tracing_data(b"sonde", fmt)
    raw = struct.pack("<i", 7) + b"\xff\xff\xff\xff"  # 8 bytes of RAW payload
    body = struct.pack("<QIIQI", 0x401000, 42, 42, 1000, len(raw)) + raw + bytes(4)
    return out + record(9, body, misc=2)


def f2_tracing_data_4g():
    # 32 bytes: a TRACING_DATA record whose blob claims 0xffffffff bytes.
    return PIPE_HEADER + record(66, struct.pack("<II", 0xFFFFFFFF, 0))


def f2_auxtrace_4g():
    # AUXTRACE: size, offset, reference, idx, tid, cpu, reserved; 4 GiB of trace data claimed.
    return PIPE_HEADER + record(71, struct.pack("<QQQIIII", 1 << 32, 0, 0, 0, 1, 0, 0))


def f3_shared_id_list(entries=64, ids=1024):
    # File mode: every attr entry points at the same id list.
    attr_size = 128 + 16
    attrs_off = 104
    ids_off = attrs_off + entries * attr_size
    end = ids_off + ids * 8
    a = attr(1, 0, SAMPLE_IP | SAMPLE_TID | SAMPLE_PERIOD)
    table = b"".join(a + struct.pack("<QQ", ids_off, ids * 8) for _ in range(entries))
    head = b"PERFILE2" + struct.pack("<QQ", 104, attr_size)
    head += struct.pack("<QQQQQQ", attrs_off, len(table), end, 0, 0, 0) + bytes(32)
    return head + table + b"".join(struct.pack("<Q", i + 1) for i in range(ids))


def f5_placeholder_event_name():
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_PERIOD
    out = PIPE_HEADER + header_attr(attr(1, 0, st, flags=0), [1])
    out += event_update_name(1, "@DATA@ @SCRIPT@ @TITLE@ </script>")
    for ip in (0x401000, 0x401000, 0x402000):
        out += record(9, struct.pack("<QIIQ", ip, 42, 42, 1000), misc=2)
    return out


def f7_kallsyms_index_zero_count():
    # A consistent 64-byte header with no symbols and no modules; the test
    # stamps the cached copy's size (offset 16) and inode (offset 24) in.
    return b"SONDEKSI" + struct.pack("<IIQQQQQQ", 1, 0, 0, 0, 0xFFFFFFFF81000000, 0, 0, 0)


# Symbol indexes (src/symbol/symbol_index.h, docs/format.md): a 64-byte
# header {magic, version, sources, build-id size, 3 reserved, build-id[20],
# count, strings_bytes, file_size}, addrs u64[n], sizes u64[n],
# names {u32 offset, u32 length}[n], strings.
SYMBOL_INDEX_BUILD_ID = bytes(range(20))


def symbol_index(addrs, sizes, names, strings, count=None, strings_bytes=None, file_size=None):
    body = b"".join(struct.pack("<Q", a) for a in addrs) + b"".join(struct.pack("<Q", s) for s in sizes)
    body += b"".join(struct.pack("<II", o, n) for o, n in names) + strings
    count = len(addrs) if count is None else count
    strings_bytes = len(strings) if strings_bytes is None else strings_bytes
    file_size = 64 + len(body) if file_size is None else file_size
    head = b"SONDESYM" + struct.pack("<IIB3x", 1, 0, 20) + SYMBOL_INDEX_BUILD_ID
    return head + struct.pack("<QQQ", count, strings_bytes, file_size) + body


def s1_symbol_index_count_wraps():
    # count * 24 wraps a 64-bit size to the body's length: must be refused
    # before any array is touched.
    return symbol_index([0x1000], [16], [(0, 1)], b"f", count=(1 << 64) // 24 + 1)


def s2_symbol_index_name_past_strings():
    # offset + length overflows 32 bits back inside the string table.
    return symbol_index([0x1000, 0x2000], [16, 16], [(0, 1), (0xFFFFFFFF, 2)], b"fg")


def s3_symbol_index_equal_addresses():
    # Two symbols at one address: the binary search would not be defined.
    return symbol_index([0x1000, 0x1000], [16, 16], [(0, 1), (1, 1)], b"fg")


# jitdumps (src/jit/jitdump.h): a 40-byte header, then records with a
# 16-byte prefix {id, total_size, timestamp}.
def jit_header(total_size=40):
    return struct.pack("<IIIIIIQQ", 0x4A695444, 1, total_size, 62, 0, 4242, 0, 0)


def jit_load(name, code, time=1, addr=0x10000, code_size=None, total=None):
    body = struct.pack("<IIQQQQ", 4242, 4242, addr, addr, len(code) if code_size is None else code_size, 1)
    body += name + b"\0" + code
    size = 16 + len(body) if total is None else total
    return struct.pack("<IIQ", 0, size, time) + body


def j1_load_claims_1t_of_code():
    # A load whose code_size (1 TiB) runs far past its 80-byte record.
    return jit_header() + jit_load(b"ok", b"\xcc" * 8) + jit_load(b"big", b"", time=2, code_size=1 << 40)


def j2_debug_info_claims_2e60_entries():
    # DEBUG_INFO's nr_entry would size 2^60 lines from 32 bytes.
    return jit_header() + jit_load(b"ok", b"\xcc" * 8) + struct.pack("<IIQQQ", 2, 32, 2, 0x10000, 1 << 60)


def j3_header_claims_more_than_the_file():
    return jit_header(total_size=0xFFFFFFFF) + jit_load(b"lost", b"\xcc" * 8)


def j4_record_smaller_than_its_prefix():
    # total_size 0 would never advance (a loop), 8 would read past the prefix.
    return jit_header() + jit_load(b"ok", b"\xcc" * 8) + struct.pack("<IIQ", 3, 0, 2)


def sample(ip, pid, time):
    return record(9, struct.pack("<QIIQ", ip, pid, pid, time))


def write_dir(name, files):
    """A directory recording (docs/format.md): files[0] is data, then data.N."""
    path = os.path.join(OUT, name)
    os.makedirs(path, exist_ok=True)
    for i, data in enumerate(files):
        write(os.path.join(name, "data" if i == 0 else "data.%d" % (i - 1)), data)


DIR_ST = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME


def d1_stream_claims_64k():
    """data.0's last record claims 64 KiB with 16 bytes left: read up to it."""
    head = PIPE_HEADER + header_attr(attr(1, 0, DIR_ST), [1])
    data = head + sample(0x401000, 42, 2000)
    cut = struct.pack("<IHH", 9, 0, 0xffff) + bytes(8)
    return [data, head + sample(0x402000, 42, 1000) + cut]


def d2_attr_differs():
    """The same id with another sample_type in data.0: one error, no guess."""
    data = PIPE_HEADER + header_attr(attr(1, 0, DIR_ST), [1]) + sample(0x401000, 42, 2000)
    other = PIPE_HEADER + header_attr(attr(1, 0, DIR_ST | SAMPLE_PERIOD), [1])
    return [data, other]


def d3_record_size_zero():
    """A record header of size 0 in data.1: the merge stops with its name."""
    head = PIPE_HEADER + header_attr(attr(1, 0, DIR_ST), [1])
    return [head + sample(0x401000, 42, 2000), head + sample(0x402000, 42, 1000),
            head + struct.pack("<IHH", 9, 0, 0)]


def main():
    os.makedirs(OUT, exist_ok=True)
    write_dir("d1_stream_claims_64k.dir", d1_stream_claims_64k())
    write_dir("d2_attr_differs.dir", d2_attr_differs())
    write_dir("d3_record_size_zero.dir", d3_record_size_zero())
    write("j1_load_claims_1t_of_code.dump", j1_load_claims_1t_of_code())
    write("j2_debug_info_claims_2e60_entries.dump", j2_debug_info_claims_2e60_entries())
    write("j3_header_claims_more_than_the_file.dump", j3_header_claims_more_than_the_file())
    write("j4_record_smaller_than_its_prefix.dump", j4_record_smaller_than_its_prefix())
    write("f1_data_loc_offset_wraps.data", f1_data_loc_wrap())
    write("f2_tracing_data_claims_4g.data", f2_tracing_data_4g())
    write("f2_auxtrace_claims_4g.data", f2_auxtrace_4g())
    write("f3_attrs_share_one_id_list.data", f3_shared_id_list())
    write("f5_placeholders_in_event_name.data", f5_placeholder_event_name())
    write("f7_kallsyms_index_zero_count.idx", f7_kallsyms_index_zero_count())
    write("s1_symbol_index_count_wraps.idx", s1_symbol_index_count_wraps())
    write("s2_symbol_index_name_past_strings.idx", s2_symbol_index_name_past_strings())
    write("s3_symbol_index_equal_addresses.idx", s3_symbol_index_equal_addresses())
    return 0


if __name__ == "__main__":
    sys.exit(main())
