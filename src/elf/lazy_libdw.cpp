// The libdw functions sonde calls, loaded on first use (util/lazy_library.h
// says why). Only report, script and convert read DWARF; libdw also brings
// liblzma and libbz2, so the other commands no longer load any of the three.
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "util/lazy_library.h"

namespace {
constinit sonde::LazyLibrary libdw("libdw.so.1");
}  // namespace

extern "C" {

Dwarf* dwarf_begin_elf(Elf* elf, Dwarf_Cmd cmd, Elf_Scn* scngrp) {
  return SONDE_LAZY_CALL(libdw, dwarf_begin_elf)(elf, cmd, scngrp);
}
int dwarf_end(Dwarf* dwarf) { return SONDE_LAZY_CALL(libdw, dwarf_end)(dwarf); }
Dwarf_CFI* dwarf_getcfi_elf(Elf* elf) { return SONDE_LAZY_CALL(libdw, dwarf_getcfi_elf)(elf); }
int dwarf_cfi_addrframe(Dwarf_CFI* cache, Dwarf_Addr address, Dwarf_Frame** frame) {
  return SONDE_LAZY_CALL(libdw, dwarf_cfi_addrframe)(cache, address, frame);
}
int dwarf_cfi_end(Dwarf_CFI* cache) { return SONDE_LAZY_CALL(libdw, dwarf_cfi_end)(cache); }
Dwarf_CFI* dwarf_getcfi(Dwarf* dwarf) { return SONDE_LAZY_CALL(libdw, dwarf_getcfi)(dwarf); }
int dwarf_next_cfi(const unsigned char e_ident[], Elf_Data* data, bool eh_frame_p, Dwarf_Off offset,
                   Dwarf_Off* next_offset, Dwarf_CFI_Entry* entry) {
  return SONDE_LAZY_CALL(libdw, dwarf_next_cfi)(e_ident, data, eh_frame_p, offset, next_offset, entry);
}
// The CFI table compiler (cfi/table_compiler.cpp).
int dwarf_frame_info(Dwarf_Frame* frame, Dwarf_Addr* start, Dwarf_Addr* end, bool* signalp) {
  return SONDE_LAZY_CALL(libdw, dwarf_frame_info)(frame, start, end, signalp);
}
int dwarf_frame_register(Dwarf_Frame* frame, int regno, Dwarf_Op ops_mem[3], Dwarf_Op** ops, size_t* nops) {
  return SONDE_LAZY_CALL(libdw, dwarf_frame_register)(frame, regno, ops_mem, ops, nops);
}
const char* dwarf_errmsg(int err) { return SONDE_LAZY_CALL(libdw, dwarf_errmsg)(err); }
Dwarf_Die* dwarf_addrdie(Dwarf* dbg, Dwarf_Addr addr, Dwarf_Die* result) {
  return SONDE_LAZY_CALL(libdw, dwarf_addrdie)(dbg, addr, result);
}
Dwarf_Attribute* dwarf_attr(Dwarf_Die* die, unsigned int search_name, Dwarf_Attribute* result) {
  return SONDE_LAZY_CALL(libdw, dwarf_attr)(die, search_name, result);
}
Dwarf_Attribute* dwarf_attr_integrate(Dwarf_Die* die, unsigned int search_name, Dwarf_Attribute* result) {
  return SONDE_LAZY_CALL(libdw, dwarf_attr_integrate)(die, search_name, result);
}
const char* dwarf_diename(Dwarf_Die* die) { return SONDE_LAZY_CALL(libdw, dwarf_diename)(die); }
int dwarf_tag(Dwarf_Die* die) { return SONDE_LAZY_CALL(libdw, dwarf_tag)(die); }
const char* dwarf_formstring(Dwarf_Attribute* attrp) { return SONDE_LAZY_CALL(libdw, dwarf_formstring)(attrp); }
int dwarf_formudata(Dwarf_Attribute* attr, Dwarf_Word* return_uval) {
  return SONDE_LAZY_CALL(libdw, dwarf_formudata)(attr, return_uval);
}
int dwarf_getscopes(Dwarf_Die* cudie, Dwarf_Addr pc, Dwarf_Die** scopes) {
  return SONDE_LAZY_CALL(libdw, dwarf_getscopes)(cudie, pc, scopes);
}
Dwarf_Line* dwarf_getsrc_die(Dwarf_Die* cudie, Dwarf_Addr addr) {
  return SONDE_LAZY_CALL(libdw, dwarf_getsrc_die)(cudie, addr);
}
int dwarf_getsrcfiles(Dwarf_Die* cudie, Dwarf_Files** files, size_t* nfiles) {
  return SONDE_LAZY_CALL(libdw, dwarf_getsrcfiles)(cudie, files, nfiles);
}
const char* dwarf_filesrc(Dwarf_Files* file, size_t idx, Dwarf_Word* mtime, Dwarf_Word* length) {
  return SONDE_LAZY_CALL(libdw, dwarf_filesrc)(file, idx, mtime, length);
}
int dwarf_lineno(Dwarf_Line* line, int* linep) { return SONDE_LAZY_CALL(libdw, dwarf_lineno)(line, linep); }
int dwarf_linecol(Dwarf_Line* line, int* colp) { return SONDE_LAZY_CALL(libdw, dwarf_linecol)(line, colp); }
const char* dwarf_linesrc(Dwarf_Line* line, Dwarf_Word* mtime, Dwarf_Word* length) {
  return SONDE_LAZY_CALL(libdw, dwarf_linesrc)(line, mtime, length);
}


// libdwfl: DWARF unwinding of --call-graph dwarf samples (report/dwarf_unwinder).
Dwfl* dwfl_begin(const Dwfl_Callbacks* callbacks) { return SONDE_LAZY_CALL(libdw, dwfl_begin)(callbacks); }
void dwfl_end(Dwfl* dwfl) { SONDE_LAZY_CALL(libdw, dwfl_end)(dwfl); }
int dwfl_errno(void) { return SONDE_LAZY_CALL(libdw, dwfl_errno)(); }
const char* dwfl_errmsg(int err) { return SONDE_LAZY_CALL(libdw, dwfl_errmsg)(err); }
Dwfl_Module* dwfl_report_elf(Dwfl* dwfl, const char* name, const char* file_name, int fd, GElf_Addr base,
                             bool add_p_vaddr) {
  return SONDE_LAZY_CALL(libdw, dwfl_report_elf)(dwfl, name, file_name, fd, base, add_p_vaddr);
}
Dwfl_Module* dwfl_report_module(Dwfl* dwfl, const char* name, Dwarf_Addr start, Dwarf_Addr end) {
  return SONDE_LAZY_CALL(libdw, dwfl_report_module)(dwfl, name, start, end);
}
Dwfl_Module* dwfl_addrmodule(Dwfl* dwfl, Dwarf_Addr address) {
  return SONDE_LAZY_CALL(libdw, dwfl_addrmodule)(dwfl, address);
}
const char* dwfl_module_info(Dwfl_Module* mod, void*** userdata, Dwarf_Addr* start, Dwarf_Addr* end,
                             Dwarf_Addr* dwbias, Dwarf_Addr* symbias, const char** mainfile,
                             const char** debugfile) {
  return SONDE_LAZY_CALL(libdw, dwfl_module_info)(mod, userdata, start, end, dwbias, symbias, mainfile, debugfile);
}
bool dwfl_attach_state(Dwfl* dwfl, Elf* elf, pid_t pid, const Dwfl_Thread_Callbacks* thread_callbacks,
                       void* dwfl_arg) {
  return SONDE_LAZY_CALL(libdw, dwfl_attach_state)(dwfl, elf, pid, thread_callbacks, dwfl_arg);
}
bool dwfl_thread_state_registers(Dwfl_Thread* thread, int firstreg, unsigned nregs, const Dwarf_Word* regs) {
  return SONDE_LAZY_CALL(libdw, dwfl_thread_state_registers)(thread, firstreg, nregs, regs);
}
void dwfl_thread_state_register_pc(Dwfl_Thread* thread, Dwarf_Word pc) {
  SONDE_LAZY_CALL(libdw, dwfl_thread_state_register_pc)(thread, pc);
}
int dwfl_getthread_frames(Dwfl* dwfl, pid_t tid, int (*callback)(Dwfl_Frame* thread, void* arg), void* arg) {
  return SONDE_LAZY_CALL(libdw, dwfl_getthread_frames)(dwfl, tid, callback, arg);
}
int dwfl_frame_reg(Dwfl_Frame* state, unsigned regno, Dwarf_Word* val) {
  return SONDE_LAZY_CALL(libdw, dwfl_frame_reg)(state, regno, val);
}
bool dwfl_frame_pc(Dwfl_Frame* state, Dwarf_Addr* pc, bool* isactivation) {
  return SONDE_LAZY_CALL(libdw, dwfl_frame_pc)(state, pc, isactivation);
}


// sonde probe (src/probe/dwarf_*): functions, scopes, variable locations,
// types and line tables of a binary's DWARF.
int dwarf_nextcu(Dwarf* dwarf, Dwarf_Off off, Dwarf_Off* next_off, size_t* header_sizep, Dwarf_Off* abbrev_offsetp,
                 uint8_t* address_sizep, uint8_t* offset_sizep) {
  return SONDE_LAZY_CALL(libdw, dwarf_nextcu)(dwarf, off, next_off, header_sizep, abbrev_offsetp, address_sizep,
                                              offset_sizep);
}
Dwarf_Die* dwarf_offdie(Dwarf* dbg, Dwarf_Off offset, Dwarf_Die* result) {
  return SONDE_LAZY_CALL(libdw, dwarf_offdie)(dbg, offset, result);
}
int dwarf_child(Dwarf_Die* die, Dwarf_Die* result) { return SONDE_LAZY_CALL(libdw, dwarf_child)(die, result); }
int dwarf_siblingof(Dwarf_Die* die, Dwarf_Die* result) { return SONDE_LAZY_CALL(libdw, dwarf_siblingof)(die, result); }
int dwarf_hasattr(Dwarf_Die* die, unsigned int search_name) {
  return SONDE_LAZY_CALL(libdw, dwarf_hasattr)(die, search_name);
}
int dwarf_entrypc(Dwarf_Die* die, Dwarf_Addr* return_addr) {
  return SONDE_LAZY_CALL(libdw, dwarf_entrypc)(die, return_addr);
}
int dwarf_highpc(Dwarf_Die* die, Dwarf_Addr* return_addr) {
  return SONDE_LAZY_CALL(libdw, dwarf_highpc)(die, return_addr);
}
int dwarf_haspc(Dwarf_Die* die, Dwarf_Addr pc) { return SONDE_LAZY_CALL(libdw, dwarf_haspc)(die, pc); }
int dwarf_decl_line(Dwarf_Die* decl, int* linep) { return SONDE_LAZY_CALL(libdw, dwarf_decl_line)(decl, linep); }
const char* dwarf_decl_file(Dwarf_Die* decl) { return SONDE_LAZY_CALL(libdw, dwarf_decl_file)(decl); }
int dwarf_func_inline(Dwarf_Die* func) { return SONDE_LAZY_CALL(libdw, dwarf_func_inline)(func); }
int dwarf_func_inline_instances(Dwarf_Die* func, int (*callback)(Dwarf_Die*, void*), void* arg) {
  return SONDE_LAZY_CALL(libdw, dwarf_func_inline_instances)(func, callback, arg);
}
int dwarf_getlocation_addr(Dwarf_Attribute* attr, Dwarf_Addr address, Dwarf_Op** exprs, size_t* exprlens,
                           size_t nlocs) {
  return SONDE_LAZY_CALL(libdw, dwarf_getlocation_addr)(attr, address, exprs, exprlens, nlocs);
}
Dwarf_Die* dwarf_formref_die(Dwarf_Attribute* attr, Dwarf_Die* type_mem) {
  return SONDE_LAZY_CALL(libdw, dwarf_formref_die)(attr, type_mem);
}
int dwarf_formsdata(Dwarf_Attribute* attr, Dwarf_Sword* return_uval) {
  return SONDE_LAZY_CALL(libdw, dwarf_formsdata)(attr, return_uval);
}
int dwarf_bytesize(Dwarf_Die* die) { return SONDE_LAZY_CALL(libdw, dwarf_bytesize)(die); }
int dwarf_bitsize(Dwarf_Die* die) { return SONDE_LAZY_CALL(libdw, dwarf_bitsize)(die); }
int dwarf_bitoffset(Dwarf_Die* die) { return SONDE_LAZY_CALL(libdw, dwarf_bitoffset)(die); }
int dwarf_getsrclines(Dwarf_Die* cudie, Dwarf_Lines** lines, size_t* nlines) {
  return SONDE_LAZY_CALL(libdw, dwarf_getsrclines)(cudie, lines, nlines);
}
Dwarf_Line* dwarf_onesrcline(Dwarf_Lines* lines, size_t idx) {
  return SONDE_LAZY_CALL(libdw, dwarf_onesrcline)(lines, idx);
}
int dwarf_lineaddr(Dwarf_Line* line, Dwarf_Addr* addrp) { return SONDE_LAZY_CALL(libdw, dwarf_lineaddr)(line, addrp); }
int dwarf_linebeginstatement(Dwarf_Line* line, bool* flagp) {
  return SONDE_LAZY_CALL(libdw, dwarf_linebeginstatement)(line, flagp);
}
int dwarf_lineendsequence(Dwarf_Line* line, bool* flagp) {
  return SONDE_LAZY_CALL(libdw, dwarf_lineendsequence)(line, flagp);
}
int dwarf_frame_cfa(Dwarf_Frame* frame, Dwarf_Op** ops, size_t* nops) {
  return SONDE_LAZY_CALL(libdw, dwarf_frame_cfa)(frame, ops, nops);
}

}  // extern "C"
