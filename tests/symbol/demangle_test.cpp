// Demangling styles: perf's qualified names and full signatures.
#include "symbol/demangle.h"

#include <gtest/gtest.h>

namespace sonde {
namespace {

TEST(Demangle, PerfStyleDropsParametersQualifiersAndReturnTypes) {
  EXPECT_EQ(demangle("_ZN13sonde_fixture6Widget4spinEi", false).value_or(""), "sonde_fixture::Widget::spin");
  EXPECT_EQ(demangle("_ZN13sonde_fixture5twiceIiEET_S1_", false).value_or(""), "sonde_fixture::twice<int>");
  EXPECT_EQ(demangle("_ZN13sonde_fixture5twiceIiEET_S1_", true).value_or(""), "int sonde_fixture::twice<int>(int)");
  EXPECT_EQ(demangle("_Z3foov@plt", false).value_or(""), "foo@plt");
  EXPECT_EQ(demangle("_Z3foov.cold", false).value_or(""), "foo [clone .cold]");
  EXPECT_FALSE(demangle("main", false));
  EXPECT_FALSE(demangle("_Zgarbage", false));
  // Operators, lambdas, anonymous namespaces and const members.
  EXPECT_EQ(strip_signature("(anonymous namespace)::Vec::operator<((anonymous namespace)::Vec const&) const"),
            "(anonymous namespace)::Vec::operator<");
  EXPECT_EQ(strip_signature("bool std::operator< <int>(std::vector<int> const&, std::vector<int> const&)"),
            "std::operator< <int>");
  EXPECT_EQ(strip_signature("main::{lambda(Vec const&, Vec const&)#1}::operator()(Vec const&, Vec const&) const"),
            "main::{lambda(Vec const&, Vec const&)#1}::operator()");
  EXPECT_EQ(strip_signature("void* operator new(unsigned long)"), "operator new");
  EXPECT_EQ(strip_signature("std::ostream::operator<<(int)"), "std::ostream::operator<<");
  EXPECT_EQ(strip_signature("Foo::operator std::string() const"), "Foo::operator std::string");
  EXPECT_EQ(strip_signature("std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int&&)"),
            "std::vector<int, std::allocator<int> >::_M_realloc_insert<int>");
  EXPECT_EQ(strip_signature("not a (balanced"), "not a (balanced");
}

}  // namespace
}  // namespace sonde
