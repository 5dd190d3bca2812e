/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Members whose type stays a declaration.  gcc describes a C++ class with
 * virtual functions only in the unit of its key function, so when that
 * unit is not in the input (the class is another library's), a member or
 * base of that class is a FWD even after the final dedup: a C header then
 * has a field of incomplete type, and the kernel refuses the BTF.  Such a
 * member becomes an array of unsigned char that spans its bytes, up to
 * the next member (or the end of its struct; a union's size), so that the
 * layout stays exact.  So does a member that runs past its struct's
 * end: rustc describes an unsized tail (a [u8], str's bytes) as one
 * element in a struct with no room for it, which the kernel refuses; it
 * becomes `unsigned char[0]`, C's flexible array.  C units cannot have
 * such members (cu_check.c refuses them), so only the output of units
 * with C names (C++, Rust but in pahole's encoding) is fixed.
 */
#ifndef DWARF2BTF_FWD_MEMBERS_H
#define DWARF2BTF_FWD_MEMBERS_H

struct btf;

/*
 * Gives each member of @btf's own types whose type is, through typedefs,
 * qualifiers and arrays, a FWD, or that runs past its struct's end, the
 * type `unsigned char[N]`; the INTs and ARRAYs needed are found or added.
 * Returns the number of members changed, or -errno.
 */
int fwd_members__to_bytes(struct btf *btf);

#endif
