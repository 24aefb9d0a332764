#!/usr/bin/env python3
"""A slow consumer for bench/threads.sh: reads stdin at about RATE bytes/s
(default 20 MB/s) into FILE, as a slow network or disk would. Like a real
link it banks no credit while idle: once it is more than 50 ms behind its
schedule (the writer had nothing to send), the schedule restarts from now,
so a recorder that starts slowly cannot catch up later in a burst."""
import sys
import time

rate = float(sys.argv[2]) if len(sys.argv) > 2 else 20e6
chunk = 65536
max_credit = 0.05  # seconds of unused bandwidth it may make up for
start = time.monotonic()
done = 0
with open(sys.argv[1], "wb") as out:
    while True:
        data = sys.stdin.buffer.read1(chunk)
        if not data:
            break
        out.write(data)
        now = time.monotonic()
        if now - (start + done / rate) > max_credit:
            start, done = now - max_credit, 0
        done += len(data)
        ahead = done / rate - (now - start)
        if ahead > 0:
            time.sleep(ahead)
