"""The symbols an ELF object file defines: the names of the functions and data that the machine code of a
compiled kernel brings (``compiled.KernelCache``), read from its symbol table instead of from the LLVM
bitcode kept beside it, which numba parses for them (a few milliseconds against tens per kernel).

The file layout is that of the System V ABI (ELF-64, little-endian, as LLVM writes it for x86-64 and
AArch64 Linux): the section header table at ``e_shoff``, the symbol table a section of type ``SHT_SYMTAB``
whose ``sh_link`` is its string table; a symbol is defined where its section index is not ``SHN_UNDEF``
(0); section and file symbols (types 3, 4) name no function or datum."""
import struct

SECTION = struct.Struct("<IIQQQQIIQQ")  # name, type, flags, addr, offset, size, link, info, addralign, entsize
SYMBOL = struct.Struct("<IBBHQQ")  # st_name, st_info, st_other, st_shndx, st_value, st_size
SYMTAB = 2
UNNAMED_TYPES = (3, 4)  # STT_SECTION, STT_FILE


def defined_symbols(data: bytes) -> "set[str] | None":
    """The names of the symbols ``data`` (an object file) defines; None where it is not a little-endian
    ELF-64 file with a symbol table (the caller then asks LLVM)."""
    if data[:6] != b"\x7fELF\x02\x01" or len(data) < 0x40:
        return None
    offset = struct.unpack_from("<Q", data, 0x28)[0]
    size, count = struct.unpack_from("<HH", data, 0x3A)
    sections = [SECTION.unpack_from(data, offset + k * size) for k in range(count)]
    tables = [s for s in sections if s[1] == SYMTAB]
    if len(tables) != 1:
        return None
    _, _, _, _, start, length, link, _, _, _ = tables[0]
    strings = sections[link][4]
    names = set()
    for name, info, _, index, _, _ in SYMBOL.iter_unpack(data[start: start + length]):
        if index != 0 and name and info & 0xF not in UNNAMED_TYPES:
            begin = strings + name
            names.add(data[begin: data.index(b"\0", begin)].decode())
    return names
