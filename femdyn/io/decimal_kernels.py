"""The rows of a CSV table as text in compiled code (numba, cached on disk), each number exactly as C's (and
Python's) ``'%.17g' % x`` writes it: the same bytes, about four times faster than formatting value by value
in Python (``io.tables``).

A finite x != 0 is |x| = M 2^e with M a 64-bit integer (the significand shifted up to its top bit). With E
the decimal exponent of the result, the 17 digits are N = round(|x| 10^(16 - E)), rounded to nearest, ties
to even (ISO C 7.21.6.1 under the default rounding mode; Python's own ``PyOS_double_to_string`` rounds the
same way: [Gay1990]), and E is the one that puts N in [10^16, 10^17) (an N rounded up to 10^17 is 10^16 at
E + 1). 10^q is taken from a table as P 2^b with P a 128-bit integer, exact for 0 <= q <= 55 (5^55 < 2^128)
and truncated otherwise (0 <= 10^q/2^b - P < 1), and |x| 10^q = (M P) 2^(e + b) with the 192-bit product
M P: N is its integer part, rounded by the bits below. Where P is truncated the product falls short of the
exact one by less than M < 2^64 units of its last bit: only a fraction within 2^64 of one half (2^-70 of a
unit of N) can then round either way, and such a value is reported (``ambiguous``) and written by Python
instead -- the result is exact for every double.

The text then follows ``%g`` with precision 17: fixed notation with 16 - E decimals where -4 <= E < 17, else
``d.ddde+XX`` (at least two exponent digits), trailing zeros of the fraction dropped, and the point with them
where none is left; "-" before a negative number (and -0). A value that is not finite is written as an empty
field (a missing value, ``io.tables``). The module imports numba: it is imported where the kernel runs.
"""
import numpy as np

from ..numerics.compiled import kernel

Q_LOW, Q_HIGH = -300, 350  # the powers 10^q of the table: q = 16 - E, E from -325 to 309 (subnormals to 1.8e308)


def _powers():
    """10^q for q in [Q_LOW, Q_HIGH] as (P_high, P_low, b, exact): 10^q = (P + frac) 2^b, 2^127 <= P < 2^128."""
    high, low, shift, exact = [], [], [], []
    for q in range(Q_LOW, Q_HIGH + 1):
        if q >= 0:
            v = 10**q
            length = v.bit_length()
            P = v << (128 - length) if length <= 128 else v >> (length - 128)
            b, is_exact = length - 128, length <= 128 or v % (1 << (length - 128)) == 0
        else:
            d = 10**-q
            k = 127 + d.bit_length()
            P, b, is_exact = (1 << k) // d, -k, False
        high.append(P >> 64)
        low.append(P & (2**64 - 1))
        shift.append(b)
        exact.append(is_exact)
    return (np.array(high, dtype=np.uint64), np.array(low, dtype=np.uint64), np.array(shift, dtype=np.int64),
            np.array(exact, dtype=np.bool_))


POWERS = _powers()
U32, ONES = np.uint64(0xFFFFFFFF), np.uint64(0xFFFFFFFFFFFFFFFF)


@kernel
def _multiply(a, b):
    """The 128-bit product of the 64-bit a and b as (high, low) words."""
    a0, a1, b0, b1 = a & U32, a >> np.uint64(32), b & U32, b >> np.uint64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    middle = (p00 >> np.uint64(32)) + (p01 & U32) + (p10 & U32)
    return p11 + (p01 >> np.uint64(32)) + (p10 >> np.uint64(32)) + (middle >> np.uint64(32)), \
        (middle << np.uint64(32)) | (p00 & U32)


@kernel
def _digits(bits, digits, high, low, shift, exact):
    """The 17 digits of the finite nonzero double of ``bits`` into ``digits`` (17,) and returns its decimal
    exponent E; a value of 1000 where the rounding is ambiguous (module docstring)."""
    field = (bits >> np.uint64(52)) & np.uint64(0x7FF)
    M = bits & np.uint64(0xFFFFFFFFFFFFF)
    if field == 0:  # subnormal
        e = np.int64(-1074)
        while M < (np.uint64(1) << np.uint64(63)):
            M <<= np.uint64(1)
            e -= 1
    else:
        M = (M | (np.uint64(1) << np.uint64(52))) << np.uint64(11)
        e = np.int64(field) - 1086
    low_n, high_n = np.uint64(10**16), np.uint64(10**17)
    E = np.int64(np.floor((e + 63) * 0.30102999566398120))  # E or E - 1: |x| >= 2^(e + 63)
    moved = 0  # E corrected once, in one direction: a truncated P may leave N one short of 10^16 there
    while True:
        k = 16 - E - Q_LOW
        h1, r0 = _multiply(M, low[k])
        h2, l2 = _multiply(M, high[k])
        r1 = h1 + l2
        r2 = h2 + np.uint64(1 if r1 < h1 else 0)
        s = np.uint64(-(e + shift[k]) - 128)  # the bits of r2 below N's
        N = r2 >> s
        if N < low_n and moved <= 0:
            E, moved = E - 1, -1
        elif N >= high_n and moved >= 0:
            E, moved = E + 1, 1
        else:
            break
    half = np.uint64(1) << (s - np.uint64(1))
    rest = r2 & ((np.uint64(1) << s) - np.uint64(1))
    if rest > half or (rest == half and (r1 | r0) != 0):
        N += np.uint64(1)
    elif rest == half:  # an exact tie, if P is exact
        if not exact[k]:
            return 1000
        N += N & np.uint64(1)
    elif not exact[k] and rest == half - np.uint64(1) and r1 == ONES:
        return 1000
    if N == high_n:
        N, E = low_n, E + 1
    if N < low_n or N > high_n:
        return 1000
    for i in range(16, -1, -1):
        digits[i] = N % np.uint64(10) + np.uint64(48)
        N //= np.uint64(10)
    return E


@kernel
def _number(bits, out, at, digits, high, low, shift, exact):
    """Writes the text of the double of ``bits`` into ``out`` from ``at`` (module docstring); returns the
    position after it, or -1 where the rounding is ambiguous."""
    if bits & np.uint64(0x7FF0000000000000) == np.uint64(0x7FF0000000000000):
        return at  # not finite: missing
    if bits >> np.uint64(63):
        out[at] = 45  # -
        at += 1
    if bits & np.uint64(0x7FFFFFFFFFFFFFFF) == 0:
        out[at] = 48
        return at + 1
    E = _digits(bits, digits, high, low, shift, exact)
    if E == 1000:
        return -1
    last = 16
    while digits[last] == 48:
        last -= 1
    if -4 <= E < 17:
        if E < 0:
            out[at], out[at + 1] = 48, 46  # 0.
            at += 2
            for _ in range(-E - 1):
                out[at] = 48
                at += 1
            for i in range(last + 1):
                out[at] = digits[i]
                at += 1
            return at
        for i in range(E + 1):
            out[at] = digits[i]
            at += 1
        if last > E:
            out[at] = 46
            at += 1
            for i in range(E + 1, last + 1):
                out[at] = digits[i]
                at += 1
        return at
    out[at] = digits[0]
    at += 1
    if last > 0:
        out[at] = 46
        at += 1
        for i in range(1, last + 1):
            out[at] = digits[i]
            at += 1
    out[at] = 101  # e
    out[at + 1] = 45 if E < 0 else 43
    at += 2
    E = abs(E)
    if E >= 100:
        out[at] = 48 + E // 100
        at += 1
    out[at], out[at + 1] = 48 + (E // 10) % 10, 48 + E % 10
    return at + 2


@kernel
def rows_text(bits, words, word_of, high, low, shift, exact):
    """The rows of a table as ASCII bytes: ``bits`` (rows, columns) the doubles' bit patterns (uint64),
    ``words`` (word columns, rows, width) the words as zero-padded bytes, ``word_of`` (columns,) which word
    column a column is (-1: a number). Fields separated by commas, rows ended by a line break. An empty
    array where a number's rounding is ambiguous (module docstring)."""
    rows, columns = bits.shape
    width = words.shape[2]
    out = np.empty(rows * (columns * max(25, width + 1)), dtype=np.uint8)
    digits = np.empty(17, dtype=np.uint8)
    at = 0
    for r in range(rows):
        for c in range(columns):
            if word_of[c] >= 0:
                for i in range(width):
                    if words[word_of[c], r, i] == 0:
                        break
                    out[at] = words[word_of[c], r, i]
                    at += 1
            else:
                at = _number(bits[r, c], out, at, digits, high, low, shift, exact)
                if at < 0:
                    return out[:0]
            out[at] = 44 if c < columns - 1 else 10
            at += 1
    return out[:at]
