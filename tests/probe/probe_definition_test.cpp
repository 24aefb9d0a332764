// perf probe's definition syntax, parsed without a binary.
#include <gtest/gtest.h>

#include "probe/probe_definition.h"
#include "probe/trace_probe.h"
#include "util/error.h"

using namespace sonde::probe;

TEST(ProbeSyntax, PointForms) {
  auto d = parse_probe_definition("grp:ev=handle_request@src/a.c:3  req->id  n=flags:x32");
  EXPECT_EQ(d.group, "grp");
  EXPECT_EQ(d.event, "ev");
  EXPECT_EQ(d.function, "handle_request");
  EXPECT_EQ(d.file, "src/a.c");
  EXPECT_EQ(d.line, 3);
  EXPECT_FALSE(d.absolute_line);
  ASSERT_EQ(d.args.size(), 2u);
  EXPECT_EQ(d.args[0].var, "req");
  ASSERT_EQ(d.args[0].fields.size(), 1u);
  EXPECT_TRUE(d.args[0].fields[0].deref);
  EXPECT_EQ(d.args[1].name, "n");
  EXPECT_EQ(d.args[1].type, "x32");
  EXPECT_EQ(d.text, "grp:ev=handle_request@src/a.c:3 req->id n=flags:x32");

  auto f = parse_probe_definition("a.c:42 i");
  EXPECT_TRUE(f.absolute_line);
  EXPECT_EQ(f.file, "a.c");
  EXPECT_EQ(f.line, 42);

  auto r = parse_probe_definition("f%return $retval:s64");
  EXPECT_TRUE(r.retprobe);
  EXPECT_TRUE(r.args[0].raw());
  EXPECT_EQ(r.args[0].type, "s64");

  auto o = parse_probe_definition("f+0x10 +8(%di):u32 arr[2].x");
  EXPECT_TRUE(o.has_offset);
  EXPECT_EQ(o.offset, 16u);
  EXPECT_TRUE(o.args[0].raw());
  EXPECT_EQ(o.args[0].type, "u32");
  ASSERT_EQ(o.args[1].fields.size(), 2u);
  EXPECT_TRUE(o.args[1].fields[0].is_index);
  EXPECT_EQ(o.args[1].fields[0].index, 2);
  EXPECT_EQ(o.args[1].fields[1].name, "x");
}

TEST(ProbeSyntax, BadDefinitionsAreUsageErrors) {
  for (const char* bad : {"", "f:x", "f+zz", "a.c", "f%return:3", "1bad=f", "f a:u7", "f a->", "f a[x]", "f a-b",
                          "f;", "f:3;pat", "f%return;pat"}) {
    try {
      parse_probe_definition(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const sonde::Error& e) {
      EXPECT_EQ(e.exit_code(), 2) << bad;
    }
  }
}

TEST(ProbeSyntax, UprobeEventLinesRoundTrip) {
  auto p = parse_uprobe_event_line(
      "p:probe_x/handle_request /tmp/x:0x0000000000001154 id=+0(-24(%bp)):s32 name=+0(+16(%di)):string arg3=%si");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->group, "probe_x");
  EXPECT_EQ(p->event, "handle_request");
  EXPECT_EQ(p->path, "/tmp/x");
  EXPECT_EQ(p->offset, 0x1154u);
  ASSERT_EQ(p->args.size(), 3u);
  EXPECT_EQ(p->args[0].fetch, "+0(-24(%bp))");
  EXPECT_EQ(p->args[0].type, "s32");
  EXPECT_EQ(p->definition(),
            "p:probe_x/handle_request /tmp/x:0x1154 id=+0(-24(%bp)):s32 name=+0(+16(%di)):string arg3=%si");
  EXPECT_FALSE(parse_uprobe_event_line("garbage"));
  EXPECT_FALSE(parse_uprobe_event_line("p:nogroup /x:0x1"));
  EXPECT_FALSE(parse_uprobe_event_line("p:g/e /x:0xzz"));
  EXPECT_EQ(default_probe_group("/lib/x86_64-linux-gnu/libc.so.6"), "probe_libc");
  EXPECT_EQ(default_probe_group("/tmp/probe_args-2"), "probe_probe_args");
}

TEST(ProbeSyntax, LazyLinePatternsRunToTheEndOfThePoint) {
  auto d = parse_probe_definition("main;sum+=* i");
  EXPECT_EQ(d.function, "main");
  EXPECT_EQ(d.lazy, "sum+=*");
  EXPECT_TRUE(d.event.empty());  // the = is the pattern's
  ASSERT_EQ(d.args.size(), 1u);
  auto f = parse_probe_definition("E=src/a.c;*x@y:z*");
  EXPECT_EQ(f.event, "E");
  EXPECT_TRUE(f.function.empty());
  EXPECT_EQ(f.file, "src/a.c");
  EXPECT_EQ(f.lazy, "*x@y:z*");
  EXPECT_EQ(f.point_text(), "src/a.c;*x@y:z*");
}
