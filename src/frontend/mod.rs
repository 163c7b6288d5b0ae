//! The front end: from a C file and its compilation flags to a parsed
//! translation unit.
//!
//! * [`clang`]: the safe wrapper that owns every `unsafe` call into libclang.
//! * [`flags`]: the compiler flags of a file, composed three ways (kernel
//!   headers tree, compile_commands.json, plain passthrough).
//! * [`kbuild`]: what the kernel tree's configuration and Makefiles say:
//!   the options that change flags, and why a file is not built.
//! * [`kbuild_module`]: the files of a composite module, from its
//!   Makefile.
//! * [`units`]: whether a file is a unit of compilation at all, or a
//!   file another one `#include`s (`not-a-unit`).
//! * [`compose`]: the entry points and definitions of a module's files
//!   joined into one program's.
//! * [`input`]: which files an invocation names, and the checks that turn bad
//!   input into clean errors before libclang sees it.
//! * [`parse`]: parsing one file and classifying clang's errors.
//! * [`entry_points`]: finding the functions the kernel may call, from the
//!   AST and the kernel models.
//! * [`lower`]: lowering the functions reachable from the entry points into
//!   the IR, with regions, locks and kernel function models.

pub mod clang;
pub mod compose;
pub mod flags;
pub mod entry_points;
pub mod input;
pub mod kbuild;
pub mod kbuild_flags;
pub mod kbuild_module;
pub mod lower;
pub mod parse;
pub mod pm_ops;
pub mod registered;
pub mod sealed;
pub mod units;
pub mod workqueues;
