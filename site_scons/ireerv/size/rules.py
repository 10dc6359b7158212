"""Inputs of a size report: the memory regions (util.memory.Region) and the rules that
name components."""
from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from ireerv.size.mapfile import InputFile

Pattern = str | tuple[str, ...]



@dataclass(frozen=True)
class ComponentRule:
    """Input sections whose file matches every given pattern belong to component `name`.

    Patterns are shell patterns (fnmatch, case-sensitive); a tuple matches when any of its
    patterns does.
      archive: the archive's file name, e.g. "libc.a"; never matches a plain object.
      member:  the object's file name: the archive member, or a plain object's base name.
      path:    the whole path as the linker printed it (the archive's path for members).
    `name` may use {archive} (archive file name) and {member} (object file name), so one rule
    can give each archive its own row.  Rules are tried in order; the first match wins.
    """

    name: str
    archive: Pattern | None = None
    member: Pattern | None = None
    path: Pattern | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("component rule needs a name")
        if self.archive is None and self.member is None and self.path is None:
            raise ValueError(f"component rule {self.name!r} has no pattern")

    def matches(self, origin: InputFile) -> bool:
        if self.archive is not None:
            if origin.archive is None:
                return False
            if not _match(PurePosixPath(origin.archive).name, self.archive):
                return False
        if self.member is not None and not _match(origin.object_name, self.member):
            return False
        return self.path is None or _match(origin.path, self.path)

    def component(self, origin: InputFile) -> str:
        archive = PurePosixPath(origin.archive).name if origin.archive else ""
        return self.name.format(archive=archive, member=origin.object_name)

    @classmethod
    def parse(cls, text: str) -> ComponentRule:
        """Parse NAME=FIELD:PATTERN[,FIELD:PATTERN...], e.g. kernel=member:matmul_lib*.o."""
        name, sep, spec = text.partition("=")
        if not sep or not spec:
            raise ValueError(f"component rule {text!r}: expected NAME=FIELD:PATTERN")
        fields: dict[str, str] = {}
        for part in spec.split(","):
            key, sep, pattern = part.partition(":")
            if not sep or key not in ("archive", "member", "path") or not pattern:
                raise ValueError(
                    f"component rule {text!r}: {part!r} is not archive:, member: or path:PATTERN"
                )
            fields[key] = pattern
        return cls(name.strip(), **fields)


def _match(value: str, pattern: Pattern) -> bool:
    patterns = (pattern,) if isinstance(pattern, str) else pattern
    return any(fnmatchcase(value, p) for p in patterns)


# libgcc objects that emulate floating point: soft-fp (GCC's current code) and the older
# fp-bit (_addsub_df.o, _df_to_si.o, ...), which some vendor toolchains still build.
SOFT_FLOAT_MEMBERS: tuple[str, ...] = tuple(
    """
    add?f3.o sub?f3.o mul?f3.o div?f3.o neg?f2.o
    eq?f2.o ne?f2.o ge?f2.o gt?f2.o le?f2.o lt?f2.o unord?f2.o cmp?f2.o
    fix?f?i.o fixuns?f?i.o float?i?f.o floatun?i?f.o floatuns?i?f.o extend?f?f2.o trunc?f?f2.o
    _*_[sdt]f.o _[sdt]f_to_*.o _*_to_[sdt]f.o
    """.split()
)
IREE_ARCHIVES: tuple[str, ...] = ("libiree_*.a", "libflatcc*.a")
LIBC_ARCHIVES: tuple[str, ...] = tuple(
    "libc.a libm.a libg.a libnosys.a libsemihost.a libdummyhost.a".split()
)


def default_rules(
    *,
    kernel: Pattern | None = None,
    control: Pattern | None = None,
    bsp: Pattern | None = None,
    app: Pattern | None = None,
) -> list[ComponentRule]:
    """The standard components; extend or reorder the list as needed.

    kernel and control are object file names (the iree-compile static library object and the
    vm-c module object); bsp and app are path patterns.  Inputs no rule matches stay
    unattributed and show up in the remainder.
    """
    rules: list[ComponentRule] = []
    if kernel is not None:
        rules.append(ComponentRule("kernel", member=kernel))
    if control is not None:
        rules.append(ComponentRule("control program", member=control))
    rules += [
        ComponentRule("iree/{archive}", archive=IREE_ARCHIVES),
        ComponentRule("libgcc soft-float", archive="libgcc.a", member=SOFT_FLOAT_MEMBERS),
        ComponentRule("libgcc", archive="libgcc.a"),
        ComponentRule("libgcc", path="*/lib/gcc/*"),  # crtbegin.o and friends
        ComponentRule("libc", archive=LIBC_ARCHIVES),
        ComponentRule("libc", path=("*/picolibc/*", "*/newlib/*")),  # crt0.o
    ]
    if bsp is not None:
        rules.append(ComponentRule("bsp", path=bsp))
    if app is not None:
        rules.append(ComponentRule("application", path=app))
    return rules

