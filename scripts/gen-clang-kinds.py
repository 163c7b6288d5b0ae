#!/usr/bin/env python3
"""Generates src/frontend/clang/kinds.rs (--part kinds) and
src/frontend/clang/c_syntax.rs (--part syntax) from clang-sys's constant
lists.

The cursor, type and operator kinds of libclang become closed Rust enums, so
that a `match` over them is checked for exhaustiveness by the compiler: the IR
lowering has no catch-all arm and must name every kind it handles or rejects.
Aliases (CXCursor_FirstDecl and the like) are dropped; constants that only a
libclang newer than 19 has are dropped.

Usage: scripts/gen-clang-kinds.py --part kinds|syntax ~/.cargo/registry/src/*/clang-sys-1.9.1/src/lib.rs
"""
import re
import sys

ENUMS = {
    "CXCursorKind": ("CursorKind", "CXCursor_"),
    "CXTypeKind": ("TypeKind", "CXType_"),
    "CXBinaryOperatorKind": ("BinaryOperator", "CXBinaryOperator_"),
    "CXUnaryOperatorKind": ("UnaryOperator", "CXUnaryOperator_"),
}
NEWER = re.compile(r'feature = "clang_(2\d)_0"')


def parse(text):
    enums = {}
    current = None
    gated = False
    for line in text.splitlines():
        m = re.match(r"\s*enum (\w+) \{", line)
        if m:
            current = m.group(1) if m.group(1) in ENUMS else None
            if current:
                enums[current] = []
            gated = False
            continue
        if current is None:
            continue
        if line.strip() == "}":
            current = None
            continue
        if NEWER.search(line):
            gated = True
            continue
        m = re.match(r"\s*const (\w+) = (-?\d+)\s*,", line)
        if m:
            if not gated:
                enums[current].append((m.group(1), int(m.group(2))))
            gated = False
    return enums


# The expression and statement kinds that C (with GNU extensions) has; the
# other expression and statement kinds are Objective-C, C++, OpenMP, OpenACC
# or Microsoft constructs, which a C driver never contains.
C_EXPRS = """UnexposedExpr DeclRefExpr MemberRefExpr CallExpr IntegerLiteral FloatingLiteral
ImaginaryLiteral StringLiteral CharacterLiteral ParenExpr UnaryOperator ArraySubscriptExpr BinaryOperator
CompoundAssignOperator ConditionalOperator CStyleCastExpr CompoundLiteralExpr InitListExpr AddrLabelExpr
StmtExpr GenericSelectionExpr GNUNullExpr UnaryExpr BuiltinBitCastExpr FixedPointLiteral""".split()
C_STMTS = """UnexposedStmt LabelStmt CompoundStmt CaseStmt DefaultStmt IfStmt SwitchStmt WhileStmt DoStmt ForStmt
GotoStmt IndirectGotoStmt ContinueStmt BreakStmt ReturnStmt AsmStmt NullStmt DeclStmt""".split()


def c_syntax(cursor_kinds):
    """CExpr and CStmt enums, and the exhaustive classification of every
    cursor kind into them."""
    names = []
    seen = set()
    for name, value in cursor_kinds:
        short = name[len("CXCursor_"):]
        if value in seen or short.startswith(("First", "Last")) or short == "Invalid":
            continue
        seen.add(value)
        names.append((short, value))
    out = ["/// The expression kinds of C (with GNU extensions).",
           "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]", "pub enum CExpr {"]
    out += ["    %s," % n for n in C_EXPRS] + ["}", ""]
    out += ["/// The statement kinds of C (with GNU extensions).",
            "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]", "pub enum CStmt {"]
    out += ["    %s," % n for n in C_STMTS] + ["}", ""]
    out += ["/// A cursor kind as the lowering of C sees it.",
            "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]", "pub enum CSyntax {",
            "    /// A C expression.", "    Expr(CExpr),", "    /// A C statement.", "    Stmt(CStmt),",
            "    /// An expression or statement of another language (Objective-C, C++,",
            "    /// OpenMP, OpenACC, Microsoft extensions): never in a C driver.",
            "    NotC(CursorKind),",
            "    /// Not an expression or statement: a declaration, reference, attribute,",
            "    /// preprocessing or other cursor.", "    Other(CursorKind),", "}", "",
            "impl CursorKind {", "    /// Classifies the kind for the lowering; exhaustive by construction.",
            "    pub fn c_syntax(self) -> CSyntax {", "        match self {"]
    for short, value in names:
        if short in C_EXPRS:
            out.append("            CursorKind::%s => CSyntax::Expr(CExpr::%s)," % (short, short))
        elif short in C_STMTS:
            out.append("            CursorKind::%s => CSyntax::Stmt(CStmt::%s)," % (short, short))
        elif 100 <= value < 350:
            out.append("            CursorKind::%s => CSyntax::NotC(self)," % short)
        else:
            out.append("            CursorKind::%s => CSyntax::Other(self)," % short)
    out += ["            CursorKind::Unknown => CSyntax::Other(self),", "        }", "    }", "}", ""]
    return out


def main():
    part, path = sys.argv[2], sys.argv[3]
    text = open(path).read()
    enums = parse(text)
    if part == "syntax":
        out = [
            "//! The C subset of libclang's cursor kinds, as closed enums, and the",
            "//! exhaustive classification of every cursor kind into them.",
            "//!",
            "//! Generated by `scripts/gen-clang-kinds.py --part syntax` from clang-sys",
            "//! 1.9.1 (libclang 19); do not edit by hand.",
            "",
            "use super::kinds::CursorKind;",
            "",
        ]
        out += c_syntax(enums["CXCursorKind"])
        sys.stdout.write("\n".join(out))
        return
    out = [
        "//! libclang's cursor, type and operator kinds as closed Rust enums.",
        "//!",
        "//! Generated by `scripts/gen-clang-kinds.py` from clang-sys 1.9.1 (libclang 19);",
        "//! do not edit by hand. Aliases such as `CXCursor_FirstDecl` are dropped.",
        "",
        "#![allow(missing_docs, non_camel_case_types)]",
        "",
    ]
    for cname, (rname, prefix) in ENUMS.items():
        seen = set()
        variants = []
        for name, value in enums[cname]:
            short = name[len(prefix):]
            if value in seen or short.startswith(("First", "Last")) or short == "Invalid" and rname in ("CursorKind",):
                continue
            seen.add(value)
            variants.append((short, value))
        out.append("/// `%s` as a closed enum; `Unknown` holds a value libclang 19 does not name." % cname)
        out.append("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]")
        out.append("pub enum %s {" % rname)
        for short, value in variants:
            out.append("    %s = %d," % (short, value))
        out.append("    Unknown = -1,")
        out.append("}")
        out.append("")
        out.append("impl %s {" % rname)
        out.append("    /// Maps libclang's raw value to the enum.")
        out.append("    pub fn from_raw(raw: i32) -> Self {")
        out.append("        match raw {")
        for short, value in variants:
            out.append("            %d => Self::%s," % (value, short))
        out.append("            _ => Self::Unknown,")
        out.append("        }")
        out.append("    }")
        out.append("}")
        out.append("")
    sys.stdout.write("\n".join(out))


main()
