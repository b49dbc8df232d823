"""Reading a wasm module's sections, for the build scripts' Python steps
(scripts/build, scripts/check-wasm, scripts/size run them with
PYTHONPATH=scripts): the one LEB128 reader and the one section walk."""

import sys


def leb(data, pos):
    """The unsigned LEB128 number at `pos` of `data`, and the position after it."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def sections(data, who, path):
    """Each section of the module `data` (read from `path`) as
    (id, start, body, end): the section's first byte, its contents' first
    byte, and the byte after it. Exits naming `who` if `data` is no module."""
    if data[:4] != b"\0asm":
        sys.exit(f"{who}: {path} is not a wasm module")
    pos = 8
    while pos < len(data):
        section = data[pos]
        size, body = leb(data, pos + 1)
        yield section, pos, body, body + size
        pos = body + size
