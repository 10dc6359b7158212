"""IDE integration: build/compile_commands.json for every C file the build compiles.

SCons's own compilation_db tool records what SCons compiles (the BSP, the runner,
soft-float, the generated model sources; each board environment loads it after
its compiler); IREE's runtime is compiled by CMake, whose database is merged in.
Adds env.CompileCommands(), which every requested target builds too.
"""

from __future__ import annotations

from pathlib import Path

import SCons.Action
from SCons.Tool import compilation_db as compilation_db

from ireerv import services
from ireerv.paths import BUILD
from ireerv.util import compile_db
from ireerv.util.scons import short_action

DATABASE = f"{BUILD}/compile_commands.json"


def _merge(target, source, env):
    count = compile_db.merge([Path(str(s)) for s in source], Path(str(target[0])))
    if env.get("VERBOSE"):
        print(f"compile_commands.json: {count} entries")


def _write_when_changed(target, source, env):
    out = Path(str(target[0]))
    fresh = out.with_name(out.name + ".new")
    compilation_db.write_compilation_db([env.File(str(fresh))], source, env)
    if out.is_file() and out.read_bytes() == fresh.read_bytes():
        fresh.unlink()
    else:
        fresh.replace(out)


def _entries_signature(env) -> str:
    """What the database says, cheaply: each object's source and command line.  A command
    line is taken once per environment (without $TARGET and $SOURCE), not once per object:
    the objects of one environment differ only in those."""
    commands: dict[tuple[int, str], int] = {}
    lines = []
    for target, source, entry_env, action in getattr(compilation_db, "__COMPILATION_DB_ENTRIES"):
        key = (id(entry_env), str(action))
        if key not in commands:
            commands[key] = len(commands)
            lines.append(f"command {commands[key]}: {entry_env.subst(str(action))}")
        lines.append(f"{target}\t{source}\t{commands[key]}")
    return "\n".join(lines)


def compile_commands(env):
    """The database of everything declared so far: call it after the targets.

    SCons's own database builder writes on every build (AlwaysBuild), which costs a no-op
    build the substitution of every object's command line; ours is written when what it
    says changes (_entries_signature)."""
    scons_db = env.Command(f"{BUILD}/.compile_commands.scons.json",
                           env.Value(_entries_signature(env)),
                           SCons.Action.Action(_write_when_changed, None if not env["VERBOSE"]
                                               else "$COMPILATIONDB_COMSTR"))
    env.Precious(scons_db)  # kept until rewritten, so an unchanged one is not touched
    runtime_dbs = list(services.of(env).runtime_dbs.values())
    return env.Command(DATABASE, [scons_db, *runtime_dbs], short_action(_merge, "IDE"))


def generate(env) -> None:
    env.Tool("ireerv_setup")
    env.Tool("compilation_db")  # its emitters record what each object is compiled with
    env.AddMethod(compile_commands, "CompileCommands")


def exists(env) -> bool:
    return True
