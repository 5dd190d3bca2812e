/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Following a DIE reference to wherever it points: its own unit, another
 * unit, or dwz's supplementary file.
 */
#ifndef DWARF2BTF_DWARF_REF_H
#define DWARF2BTF_DWARF_REF_H

#include <elfutils/libdw.h>

/*
 * dwarf_ref__die() is dwarf_formref_die() that also follows DWARF 5's
 * DW_FORM_ref_sup4/8 into the supplementary file set as libdw's
 * alternate (libdw 0.188 looks for those in the main file).  Returns
 * @out, or NULL when @attr leads nowhere.
 */
Dwarf_Die *dwarf_ref__die(Dwarf_Attribute *attr, Dwarf_Die *out);

/*
 * dwarf_ref__stub() sets *@out to the type that @die stands for when @die
 * is a stub: a struct, union, class or enum that only names a type unit's
 * type by DW_AT_signature (gcc's -fdebug-types-section), a type of its own
 * kind (a struct's may be a class).  Returns @out, or NULL when @die is no
 * stub, or names no type unit's type of its kind.
 */
Dwarf_Die *dwarf_ref__stub(Dwarf_Die *die, Dwarf_Die *out);

/*
 * dwarf_ref__type() follows a type reference as dwarf_ref__die() does,
 * and then through a stub (dwarf_ref__stub()), so that what reads a type
 * sees the type itself; a stub whose type is not found stays as it is.
 * Returns @out, or NULL when @attr leads nowhere.
 */
Dwarf_Die *dwarf_ref__type(Dwarf_Attribute *attr, Dwarf_Die *out);

#endif /* DWARF2BTF_DWARF_REF_H */
