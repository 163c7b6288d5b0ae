//! Memory regions of the lowering (src/frontend/lower/regions.rs, place.rs):
//! the static split (one region per field of a named record, per global,
//! per pointee type, per address-taken local) and the unification triggers
//! (address taken, byte access, record cast, unions, bit-field units, the
//! memory functions), each checked on a small driver snippet written
//! against the real 6.12 kernel API.
//!
//! behaviour the lowering does not have yet.

mod lowering_support;

use lowering_support::{bit_unit, field, global, local, lower, pointee, union};

/// Two fields of one structure are two regions, named after the record.
#[test]
fn two_fields_of_one_struct_are_two_regions() {
    let l = lower(
        "two-fields",
        r#"
#include <linux/types.h>
struct foo { int a; int b; };
void set(struct foo *p) { p->a = 1; p->b = 2; }
"#,
    );
    assert_eq!(l.region_of(&field("struct foo", "a")), "struct foo.a");
    assert_eq!(l.region_of(&field("struct foo", "b")), "struct foo.b");
    assert!(!l.same_region(&field("struct foo", "a"), &field("struct foo", "b")));
    assert_eq!(l.region_kind(&field("struct foo", "a")), "field");
    assert_eq!(l.region_names(), vec!["struct foo.a", "struct foo.b"]);
    assert_eq!(
        l.accesses("set"),
        vec![("store".to_string(), "struct foo.a".to_string()), ("store".to_string(), "struct foo.b".to_string())]
    );
}

/// Fields of the same name in two records are different regions.
#[test]
fn same_field_name_in_two_records_is_two_regions() {
    let l = lower(
        "same-name",
        r#"
#include <linux/types.h>
struct foo { int x; };
struct bar { int x; };
void set(struct foo *f, struct bar *b) { f->x = 1; b->x = 2; }
"#,
    );
    assert_eq!(l.stored_regions("set"), vec!["struct foo.x", "struct bar.x"]);
    assert!(!l.same_region(&field("struct foo", "x"), &field("struct bar", "x")));
}

/// `p->x`, `(*p).x`, `arr[i].x`, `g.x` and a `container_of` pointer all
/// reach the one region `struct foo.x`.
#[test]
fn one_field_through_every_path_is_one_region() {
    let l = lower(
        "paths",
        r#"
#include <linux/kernel.h>
#include <linux/container_of.h>
#include <linux/list.h>
struct foo { int x; struct list_head node; };
struct foo g;
struct foo arr[4];
void paths(struct foo *p, int i, struct list_head *n)
{
	struct foo *c = container_of(n, struct foo, node);
	p->x = 1;
	(*p).x = 2;
	arr[i].x = 3;
	g.x = 4;
	c->x = 5;
}
"#,
    );
    let stores: Vec<String> = l.accesses("paths").into_iter().filter(|(k, _)| k == "store").map(|(_, r)| r).collect();
    assert_eq!(stores, vec!["struct foo.x"; 5], "{}", l.procedure("paths"));
    assert_eq!(l.region_of(&field("struct foo", "x")), "struct foo.x");
    assert!(!l.has_key(&global("g")), "a global structure's fields are its record's regions");
    assert!(!l.has_key(&global("arr")));
}

/// A field of an embedded structure is the inner record's region, through
/// the outer structure and through a pointer to the inner one.
#[test]
fn embedded_struct_field_is_the_inner_records_region() {
    let l = lower(
        "embedded",
        r#"
#include <linux/types.h>
struct inner { int x; int y; };
struct outer { int a; struct inner in; };
void set(struct outer *o, struct inner *ip) { o->in.x = 1; ip->x = 2; o->in.y = 3; }
"#,
    );
    assert_eq!(l.stored_regions("set"), vec!["struct inner.x", "struct inner.y"]);
    assert!(!l.has_key(&field("struct outer", "x")));
    assert!(!l.has_key(&field("struct outer", "in")));
    assert!(!l.same_region(&field("struct inner", "x"), &field("struct inner", "y")));
}

/// Fields of anonymous members: an anonymous struct's fields belong to the
/// enclosing named record; an anonymous union's members share one region.
#[test]
fn anonymous_members_belong_to_the_named_record() {
    let l = lower(
        "anonymous",
        r#"
#include <linux/types.h>
struct foo {
	int a;
	struct { int x; int y; };
	union { int i; long l; };
};
void set(struct foo *f) { f->x = 1; f->y = 2; f->i = 3; f->l = 4; }
"#,
    );
    assert_eq!(l.region_of(&field("struct foo", "x")), "struct foo.x");
    assert_eq!(l.region_of(&field("struct foo", "y")), "struct foo.y");
    let stores = l.stored_regions("set");
    assert_eq!(stores.len(), 3, "x, y, and one region for the anonymous union: {stores:?}");
    assert_eq!(&stores[..2], ["struct foo.x", "struct foo.y"]);
    assert!(stores[2].starts_with("struct foo."), "the anonymous union is named inside struct foo: {}", stores[2]);
}

/// A global `int` is `global count`.
#[test]
fn global_int_is_its_own_region() {
    let l = lower(
        "global-int",
        r#"
#include <linux/types.h>
int count;
void bump(void) { count = count + 1; }
"#,
    );
    assert_eq!(l.region_of(&global("count")), "global count");
    assert_eq!(l.region_kind(&global("count")), "global");
    assert_eq!(
        l.accesses("bump"),
        vec![("load".to_string(), "global count".to_string()), ("store".to_string(), "global count".to_string())]
    );
    assert!(!l.has_key(&pointee("int")));
}

/// A global array of `int` is one region, `global buf`, for every element.
#[test]
fn global_int_array_is_one_global_region() {
    let l = lower(
        "global-array",
        r#"
#include <linux/types.h>
int buf[8];
void set(int i) { buf[i] = 1; buf[0] = 2; }
"#,
    );
    assert_eq!(l.stored_regions("set"), vec!["global buf"], "{}", l.procedure("set"));
    assert!(!l.has_key(&pointee("int")));
}

/// A static local is a global named `function.name`.
#[test]
fn static_local_is_a_global_named_by_its_function() {
    let l = lower(
        "static-local",
        r#"
#include <linux/types.h>
int next_id(void) { static int calls; return ++calls; }
"#,
    );
    assert_eq!(l.region_of(&global("next_id.calls")), "global next_id.calls");
    assert_eq!(l.region_kind(&global("next_id.calls")), "global");
    assert!(!l.is_thread_private(&global("next_id.calls")));
    assert_eq!(l.stored_regions("next_id"), vec!["global next_id.calls"]);
}

/// `int *p = &dev->count; *p = 1;` merges `struct foo.count` with `int
/// (pointee)`; the struct's other field stays alone.
#[test]
fn address_taken_field_merges_with_int_pointee() {
    let l = lower(
        "address-taken",
        r#"
#include <linux/types.h>
struct foo { int a; int count; };
void set(struct foo *dev) { int *p = &dev->count; *p = 1; dev->a = 2; }
"#,
    );
    assert!(l.same_region(&field("struct foo", "count"), &pointee("int")));
    assert_eq!(l.region_of(&field("struct foo", "count")), "int (pointee) | struct foo.count");
    assert_eq!(l.region_kind(&pointee("int")), "merged");
    assert_eq!(l.region_of(&field("struct foo", "a")), "struct foo.a");
    assert_eq!(l.stored_regions("set"), vec!["int (pointee) | struct foo.count", "struct foo.a"]);
}

/// The address of a global scalar escaping merges it with its pointee
/// type's region.
#[test]
fn address_taken_global_merges_with_its_pointee_type() {
    let l = lower(
        "address-global",
        r#"
#include <linux/types.h>
long total;
static void add(long *p, long v) { *p += v; }
void account(void) { add(&total, 3); }
"#,
    );
    assert!(l.same_region(&global("total"), &pointee("long")));
    assert_eq!(l.region_of(&global("total")), "global total | long (pointee)");
}

/// A plain pointer's pointee is the region of its type; two scalar types
/// are two regions.
#[test]
fn scalar_pointees_are_per_type() {
    let l = lower(
        "pointees",
        r#"
#include <linux/types.h>
void set(int *p, long *q, u16 *r) { *p = 1; *q = 2; *r = 3; }
"#,
    );
    assert_eq!(l.stored_regions("set"), vec!["int (pointee)", "long (pointee)", "unsigned short (pointee)"]);
}

/// A byte-wise access `(u8 *)dev` merges every field region of the record
/// with `unsigned char (pointee)`.
#[test]
fn byte_cast_merges_every_field_with_unsigned_char_pointee() {
    let l = lower(
        "byte-cast",
        r#"
#include <linux/types.h>
struct foo { int a; long b; u16 c; };
struct other { int z; };
void poke(struct foo *dev, struct other *o) { u8 *bytes = (u8 *)dev; bytes[1] = 0; o->z = 1; }
"#,
    );
    let merged = "struct foo.a | struct foo.b | struct foo.c | unsigned char (pointee)";
    for f in ["a", "b", "c"] {
        assert!(l.same_region(&field("struct foo", f), &pointee("unsigned char")), "field {f}");
        assert_eq!(l.region_of(&field("struct foo", f)), merged);
    }
    assert_eq!(l.stored_regions("poke"), vec![merged, "struct other.z"]);
}

/// `memset(dev, 0, sizeof(*dev))` writes every field region of the record
/// (and merges nothing: the cast to `void *` is seen through).
#[test]
fn memset_over_a_struct_writes_every_field_region() {
    let l = lower(
        "memset",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; long b; u8 c; };
void clear(struct foo *dev) { memset(dev, 0, sizeof(*dev)); }
"#,
    );
    assert_eq!(l.stored_regions("clear"), vec!["struct foo.a", "struct foo.b", "struct foo.c"], "{}", l.procedure("clear"));
    assert!(l.loaded_regions("clear").is_empty());
    assert_eq!(l.region_names(), vec!["struct foo.a", "struct foo.b", "struct foo.c"]);
}

/// `memset` of an array field writes that field's region (the array's
/// decay to a pointer may merge it with its element's pointee region; the
/// write is in the field's final region either way), and nothing else.
#[test]
fn memset_of_an_array_field_writes_the_field_region() {
    let l = lower(
        "memset-field",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; int buf[4]; };
void clear(struct foo *f) { memset(f->buf, 0, sizeof(f->buf)); }
"#,
    );
    let buf = l.region_of(&field("struct foo", "buf"));
    assert!(buf.split(" | ").any(|n| n == "struct foo.buf"), "{buf}");
    assert_eq!(l.stored_regions("clear"), vec![buf], "{}", l.procedure("clear"));
    assert!(!l.has_key(&field("struct foo", "a")), "memset of the array writes no other field");
}

/// `memcpy(dst, src, sizeof(*dst))` reads the source's field regions and
/// writes the destination's.
#[test]
fn memcpy_reads_source_fields_and_writes_destination_fields() {
    let l = lower(
        "memcpy",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; int b; };
struct bar { int p; int q; };
void copy(struct foo *dst, struct bar *src) { memcpy(dst, src, sizeof(*dst)); }
"#,
    );
    assert_eq!(l.loaded_regions("copy"), vec!["struct bar.p", "struct bar.q"], "{}", l.procedure("copy"));
    assert_eq!(l.stored_regions("copy"), vec!["struct foo.a", "struct foo.b"]);
    assert!(!l.same_region(&field("struct foo", "a"), &field("struct bar", "p")));
}

/// `memcpy(&a, &b, sizeof(a))` between two global structures reads and
/// writes the fields' regions.
#[test]
fn memcpy_between_globals_accesses_field_regions() {
    let l = lower(
        "memcpy-globals",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; int b; };
struct foo cur, saved;
void save(void) { memcpy(&saved, &cur, sizeof(saved)); }
"#,
    );
    assert_eq!(
        l.accesses("save"),
        vec![
            ("load".to_string(), "struct foo.a".to_string()),
            ("load".to_string(), "struct foo.b".to_string()),
            ("store".to_string(), "struct foo.a".to_string()),
            ("store".to_string(), "struct foo.b".to_string()),
        ],
        "{}",
        l.procedure("save")
    );
}

/// `memcpy` between two local structures accesses the locals' own
/// thread-private regions, the ones `b.a = 1` and `a.a` use (as `memcpy`
/// of a local scalar `&x` already does): two accesses to one byte must be
/// in one region.
#[test]
fn memcpy_between_locals_accesses_the_locals_regions() {
    let l = lower(
        "memcpy-locals",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; int b; };
int copy(void)
{
	struct foo a, b;
	b.a = 1;
	b.b = 2;
	memcpy(&a, &b, sizeof(a));
	return a.a;
}
"#,
    );
    assert_eq!(l.loaded_regions("copy"), vec!["local copy.b", "local copy.a"], "{}", l.procedure("copy"));
    assert_eq!(l.stored_regions("copy"), vec!["local copy.b", "local copy.a"]);
    assert!(!l.has_key(&field("struct foo", "a")));
}

/// Union members share one region named after the union.
#[test]
fn union_members_share_one_region() {
    let l = lower(
        "union",
        r#"
#include <linux/types.h>
union u { int i; long l; u8 bytes[8]; };
void set(union u *x) { x->i = 1; x->l = 2; x->bytes[3] = 4; }
"#,
    );
    assert_eq!(l.region_of(&union("union u")), "union u");
    let stores: Vec<String> = l.accesses("set").into_iter().map(|(_, r)| r).collect();
    assert_eq!(stores, vec!["union u"; 3], "{}", l.procedure("set"));
}

/// A structure inside a union merges with the union's region.
#[test]
fn struct_inside_union_merges_with_the_union() {
    let l = lower(
        "union-struct",
        r#"
#include <linux/types.h>
struct pair { int lo; int hi; };
union u { long whole; struct pair half; };
void set(union u *x, struct pair *p) { x->whole = 1; x->half.hi = 2; p->lo = 3; }
"#,
    );
    assert!(l.same_region(&union("union u"), &field("struct pair", "hi")));
    assert!(l.same_region(&union("union u"), &field("struct pair", "lo")));
    assert_eq!(l.region_of(&union("union u")), "struct pair.hi | struct pair.lo | union u");
    assert_eq!(l.stored_regions("set"), vec!["struct pair.hi | struct pair.lo | union u"]);
}

/// Two bit-fields of one storage unit share the unit's region; a write
/// loads and stores the whole unit; a field after the unit stays apart.
#[test]
fn bit_fields_of_one_unit_share_a_region() {
    let l = lower(
        "bit-fields",
        r#"
#include <linux/types.h>
struct foo { int a; unsigned int f1:3, f2:5; int tail; };
void set(struct foo *p) { p->f1 = 1; p->f2 = 2; p->tail = 3; }
"#,
    );
    let unit = "struct foo bit-fields at +4";
    assert_eq!(l.region_of(&bit_unit("struct foo", 4)), unit);
    assert!(!l.has_key(&field("struct foo", "f1")));
    assert!(!l.has_key(&field("struct foo", "f2")));
    let access = |k: &str, r: &str| (k.to_string(), r.to_string());
    assert_eq!(
        l.accesses("set"),
        vec![access("load", unit), access("store", unit), access("load", unit), access("store", unit), access("store", "struct foo.tail")],
        "{}",
        l.procedure("set")
    );
}

/// A cast between two unrelated structure pointer types merges their
/// regions: every field of one may alias every field of the other.
#[test]
fn record_cast_merges_both_records() {
    let l = lower(
        "record-cast",
        r#"
#include <linux/types.h>
struct foo { int a; int b; };
struct bar { int p; int q; };
struct baz { int z; };
void alias(struct foo *f, struct baz *z) { struct bar *b = (struct bar *)f; b->p = 1; f->b = 2; z->z = 3; }
"#,
    );
    for (x, y) in [("a", "p"), ("b", "q"), ("a", "q"), ("b", "p")] {
        assert!(l.same_region(&field("struct foo", x), &field("struct bar", y)), "foo.{x} and bar.{y}");
    }
    assert_eq!(l.region_kind(&field("struct foo", "a")), "merged");
    assert_eq!(l.region_of(&field("struct baz", "z")), "struct baz.z");
}

/// A cast through `void *` (`void *p = dev; struct foo *q = p;`) is
/// assumed type-correct: nothing merges (docs/soundness.md).
#[test]
fn void_pointer_round_trip_keeps_fields_unmerged() {
    let l = lower(
        "void-round-trip",
        r#"
#include <linux/types.h>
struct foo { int a; int b; };
void set(struct foo *dev) { void *p = dev; struct foo *q = p; q->a = 1; }
"#,
    );
    assert_eq!(l.region_of(&field("struct foo", "a")), "struct foo.a");
    assert_eq!(l.region_kind(&field("struct foo", "a")), "field");
    assert_eq!(l.region_names(), vec!["struct foo.a"]);
}

/// A local whose address is taken only by a kernel model (here `memset`)
/// is a thread-private region `local fn.x`; so is a local structure, whose
/// fields are then not their record's regions.
#[test]
fn address_taken_local_and_local_struct_are_thread_private() {
    let l = lower(
        "locals",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; int b; };
int locals(void)
{
	int x;
	struct foo s;
	memset(&x, 0, sizeof(x));
	s.a = x;
	return s.a;
}
"#,
    );
    assert_eq!(l.region_of(&local("locals.x")), "local locals.x");
    assert!(l.is_thread_private(&local("locals.x")));
    assert_eq!(l.region_of(&local("locals.s")), "local locals.s");
    assert!(l.is_thread_private(&local("locals.s")));
    assert!(!l.has_key(&field("struct foo", "a")));
    assert!(!l.has_key(&pointee("int")));
    assert!(l.text().contains("\"local locals.x\" global thread-private: int;"), "{}", l.text());
    assert!(l.text().contains("\"local locals.s\" global thread-private: int;"));
    assert_eq!(l.stored_regions("locals"), vec!["local locals.x", "local locals.s"], "{}", l.procedure("locals"));
}

/// A local whose address escapes (to a procedure, or into a pointer
/// variable) can be written through the pointer: every access to it,
/// direct or through the pointer, is in the pointer type's shared region
/// (two accesses to one byte are in one region), which is race-checked.
#[test]
fn escaping_local_is_in_its_types_shared_region() {
    let l = lower(
        "local-escape",
        r#"
#include <linux/types.h>
static void set(int *p) { *p = 1; }
int get(void) { int x = 0; set(&x); return x; }
long via(void) { long y; long *q = &y; *q = 2; return y; }
"#,
    );
    let access = |k: &str, r: &str| (k.to_string(), r.to_string());
    assert_eq!(l.stored_regions("set"), vec!["int (pointee)"]);
    assert_eq!(l.accesses("get"), vec![access("store", "int (pointee)"), access("load", "int (pointee)")], "{}", l.procedure("get"));
    assert_eq!(l.accesses("via"), vec![access("store", "long (pointee)"), access("load", "long (pointee)")], "{}", l.procedure("via"));
    assert!(!l.has_key(&local("get.x")));
    assert!(!l.has_key(&local("via.y")));
    assert!(!l.is_thread_private(&pointee("int")));
}

/// An array field `dev->buf[i]` is the region of the field `buf`.
#[test]
fn array_field_element_is_the_field_region() {
    let l = lower(
        "array-field",
        r#"
#include <linux/types.h>
struct foo { int a; u8 buf[16]; int vals[4]; };
void set(struct foo *dev, int i) { dev->buf[i] = 1; dev->vals[i] = 2; dev->vals[0] = 3; }
"#,
    );
    assert_eq!(l.stored_regions("set"), vec!["struct foo.buf", "struct foo.vals"], "{}", l.procedure("set"));
    assert!(!l.has_key(&pointee("unsigned char")));
    assert!(!l.has_key(&pointee("int")));
}

/// `*dst = *src` reads the source's field regions (an array field as a
/// whole) and writes the destination's.
#[test]
fn record_assignment_reads_the_source_field_regions() {
    let l = lower(
        "record-copy",
        r#"
#include <linux/types.h>
struct foo { int a; int vals[4]; };
void copy(struct foo *dst, struct foo *src) { *dst = *src; }
"#,
    );
    assert_eq!(l.loaded_regions("copy"), vec!["struct foo.a", "struct foo.vals"], "{}", l.procedure("copy"));
    assert_eq!(l.stored_regions("copy"), vec!["struct foo.a", "struct foo.vals"]);
    assert!(!l.has_key(&local("copy.temporary")));
}

/// A record initialiser, a member-to-member copy and a copy into a global
/// read the source's field regions, never a thread-private temporary.
#[test]
fn record_copies_of_every_form_read_the_source_field_regions() {
    let l = lower(
        "record-copies",
        r#"
#include <linux/types.h>
struct in { int x; };
struct foo { int a; struct in i; };
struct foo g;
int init(struct foo *src) { struct foo v = *src; return v.a; }
void member(struct foo *dst, struct foo *src) { dst->i = src->i; }
void to_global(struct foo *src) { g = *src; }
"#,
    );
    assert_eq!(l.loaded_regions("init"), vec!["struct foo.a", "struct in.x", "local init.v"], "{}", l.procedure("init"));
    assert_eq!(l.loaded_regions("member"), vec!["struct in.x"], "{}", l.procedure("member"));
    assert_eq!(l.loaded_regions("to_global"), vec!["struct foo.a", "struct in.x"], "{}", l.procedure("to_global"));
    assert_eq!(l.stored_regions("to_global"), vec!["struct foo.a", "struct in.x"]);
}

/// atomic_t operations access `struct atomic_t.counter` atomically:
/// atomic_set stores, atomic_read loads, atomic_inc loads and stores.
#[test]
fn atomic_operations_access_the_counter_atomically() {
    let l = lower(
        "atomics",
        r#"
#include <linux/atomic.h>
struct foo { int a; atomic_t users; };
int use(struct foo *f)
{
	atomic_set(&f->users, 1);
	atomic_inc(&f->users);
	return atomic_read(&f->users);
}
"#,
    );
    let counter = "struct atomic_t.counter";
    let access = |k: &str| (k.to_string(), counter.to_string());
    assert_eq!(
        l.accesses("use"),
        vec![access("store.atomic"), access("load.atomic"), access("store.atomic"), access("load.atomic")],
        "{}",
        l.procedure("use")
    );
    assert_eq!(l.region_names(), vec![counter]);
}

/// READ_ONCE and WRITE_ONCE of a field access that field's region, and
/// only it: `*(volatile int *)&f->a` does not let the address escape, so
/// the field need not merge with `int (pointee)`.
#[test]
fn read_once_and_write_once_access_the_field_region() {
    let l = lower(
        "once",
        r#"
#include <linux/compiler.h>
#include <linux/types.h>
struct foo { int a; int b; };
int once(struct foo *f) { WRITE_ONCE(f->a, 1); return READ_ONCE(f->b); }
"#,
    );
    assert_eq!(l.stored_regions("once"), vec!["struct foo.a"], "{}", l.text());
    assert_eq!(l.loaded_regions("once"), vec!["struct foo.b"]);
    assert!(!l.same_region(&field("struct foo", "a"), &field("struct foo", "b")));
}

/// READ_ONCE and WRITE_ONCE reach the memory of the field they name, at
/// its address (whatever the merges around it), as marked (atomic)
/// accesses: KCSAN treats a volatile access of at most 8 bytes as atomic.
#[test]
fn read_once_and_write_once_access_the_fields_memory() {
    let l = lower(
        "once-address",
        r#"
#include <linux/compiler.h>
#include <linux/types.h>
struct foo { int a; int b; };
int once(struct foo *f) { WRITE_ONCE(f->b, 1); return READ_ONCE(f->b); }
"#,
    );
    let body = l.commands("once");
    let store = body.iter().find(|c| c.starts_with("store")).expect("a store");
    let load = body.iter().find(|c| c.contains(":= load")).expect("a load");
    let region = l.region_of(&field("struct foo", "b"));
    assert!(store.starts_with(&format!("store.atomic {region:?}[f.2 + 4] := ")), "{store}");
    assert!(load.ends_with(&format!("load.atomic {region:?}[f.2 + 4];")), "{load}");
}

/// A record passed by value is copied into a thread-private local; reading
/// its fields reads the caller's record regions once, at the call.
#[test]
fn record_parameter_by_value_is_a_thread_private_copy() {
    let l = lower(
        "by-value",
        r#"
#include <linux/types.h>
struct foo { int a; int b; };
int sum(struct foo v) { return v.a + v.b; }
"#,
    );
    assert_eq!(l.region_of(&local("sum.v")), "local sum.v");
    assert!(l.is_thread_private(&local("sum.v")));
    assert_eq!(l.loaded_regions("sum"), vec!["struct foo.a", "struct foo.b", "local sum.v"], "{}", l.procedure("sum"));
}

/// The address of a scalar field or a bitmap array field passed to a bit
/// operation (a model that does not keep its bitmap argument, `keeps`) does
/// not escape: the field keeps its own region, and the model's atomic
/// accesses are in it.
#[test]
fn bit_operation_on_a_field_keeps_the_field_apart() {
    let l = lower(
        "bitops-field",
        r#"
#include <linux/bitops.h>
#include <linux/types.h>
struct foo { unsigned long flags; DECLARE_BITMAP(map, 70); unsigned long other; };
void bits(struct foo *p, unsigned long *q)
{
	set_bit(1, &p->flags);
	if (test_bit(3, p->map))
		clear_bit(2, p->map);
	*q = 0;
	p->other = 1;
}
"#,
    );
    assert_eq!(l.region_of(&field("struct foo", "flags")), "struct foo.flags", "{}", l.procedure("bits"));
    assert_eq!(l.region_of(&field("struct foo", "map")), "struct foo.map");
    assert_eq!(l.region_of(&pointee("unsigned long")), "unsigned long (pointee)");
    let stores = l.stored_regions("bits");
    assert!(stores.contains(&"struct foo.flags".to_string()) && stores.contains(&"struct foo.map".to_string()), "{stores:?}");
}

/// `strscpy` of a string literal into an array field, and a DMA handle
/// written through `&p->dma` by `dma_alloc_coherent`: both fields keep their
/// regions, and string literals stay apart from `char (pointee)`.
#[test]
fn string_and_out_parameter_models_keep_fields_apart() {
    let l = lower(
        "strscpy-dma",
        r#"
#include <linux/string.h>
#include <linux/dma-mapping.h>
struct foo { char name[16]; dma_addr_t dma; void *buf; };
void fill(struct foo *p, struct device *d, char *s)
{
	strscpy(p->name, "foo", sizeof(p->name));
	p->buf = dma_alloc_coherent(d, 64, &p->dma, GFP_KERNEL);
	s[0] = 0;
}
"#,
    );
    assert_eq!(l.region_of(&field("struct foo", "name")), "struct foo.name", "{}", l.procedure("fill"));
    assert_eq!(l.region_of(&field("struct foo", "dma")), "struct foo.dma");
    assert!(!l.same_region(&global("string literals"), &pointee("char")));
    assert!(l.stored_regions("fill").contains(&"struct foo.name".to_string()));
    assert!(l.stored_regions("fill").contains(&"struct foo.dma".to_string()));
}

/// What must still merge: a field address passed to a driver function
/// (which accesses it at its pointee type), to a model that returns it
/// (`memcpy` returns its destination), or cast to another pointer type.
#[test]
fn field_addresses_that_escape_still_merge() {
    let l = lower(
        "still-merge",
        r#"
#include <linux/string.h>
#include <linux/types.h>
struct foo { int a; int b; u32 c; u16 d; };
static void bump(int *x) { (*x)++; }
void f(struct foo *p, int v)
{
	bump(&p->a);
	memcpy(&p->b, &v, sizeof(p->b));
	memset((u8 *)&p->c, 0, 1);
	p->d = 1;
}
"#,
    );
    assert!(l.same_region(&field("struct foo", "a"), &pointee("int")), "{}", l.procedure("f"));
    assert!(l.same_region(&field("struct foo", "b"), &pointee("int")));
    assert!(l.same_region(&field("struct foo", "c"), &pointee("unsigned int")));
    assert_eq!(l.region_of(&field("struct foo", "d")), "struct foo.d");
}

/// Anonymous unions of one record are told apart by their first named
/// field (as net_device_stats's counters are), and each still holds all
/// its members.
#[test]
fn anonymous_unions_of_one_record_are_apart() {
    let l = lower(
        "anonymous-unions",
        r#"
#include <linux/types.h>
struct stats {
	union { unsigned long rx; long __rx; };
	union { unsigned long tx; long __tx; };
};
void count(struct stats *s) { s->rx++; s->__tx = 0; }
"#,
    );
    let rx = union("struct stats.<anonymous union rx>");
    let tx = union("struct stats.<anonymous union tx>");
    assert_eq!(l.region_of(&rx), "struct stats.<anonymous union rx>", "{:?}", l.keys());
    assert_eq!(l.region_of(&tx), "struct stats.<anonymous union tx>");
    assert!(!l.same_region(&rx, &tx));
}

/// `__func__` (a wrapper around the string literal of the function's name)
/// passed to a printing function, which keeps none of its arguments, leaves
/// string literals apart from `char (pointee)`; an array field passed to
/// `strstr`, which hands back a pointer into it (`keeps="0"`), still merges
/// with `char (pointee)`.
#[test]
fn function_name_apart_and_strstr_argument_kept() {
    let l = lower(
        "func-strstr",
        r#"
#include <linux/printk.h>
#include <linux/string.h>
struct foo { char name[16]; char tag[8]; };
char *find(struct foo *p)
{
	pr_err("%s: %s\n", __func__, p->tag);
	return strstr(p->name, "x");
}
"#,
    );
    assert!(!l.same_region(&global("string literals"), &pointee("char")), "{}", l.procedure("find"));
    // The printing model reads no `%s` argument: the field's address is
    // taken, and its storage merges with nothing.
    let tag = field("struct foo", "tag");
    assert!(!l.has_key(&tag) || l.region_of(&tag) == "struct foo.tag", "{:?}", l.keys());
    assert!(l.same_region(&field("struct foo", "name"), &pointee("char")));
}
