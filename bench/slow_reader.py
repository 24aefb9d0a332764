#!/usr/bin/env python3
"""A slow consumer for bench/threads.sh: reads stdin at about RATE bytes/s
(default 20 MB/s) into FILE, as a slow network or disk would."""
import sys
import time

rate = float(sys.argv[2]) if len(sys.argv) > 2 else 20e6
chunk = 65536
start = time.monotonic()
done = 0
with open(sys.argv[1], "wb") as out:
    while True:
        data = sys.stdin.buffer.read1(chunk)
        if not data:
            break
        out.write(data)
        done += len(data)
        ahead = done / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
