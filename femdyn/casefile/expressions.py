"""Safe arithmetic expressions for case files, such as ``"2*pi/3"`` or ``"5*sin(2*pi*t)"``.

The text is parsed with :mod:`ast` and only a whitelist is accepted: numbers, ``+ - * / **``, unary
signs, parentheses, the constants ``pi`` and ``e``, the variable ``t`` (time functions only) and the
functions below. Nothing is passed to ``eval``; the tree is turned into nested closures over numpy.
An expression is at most ``MAX_LENGTH`` characters long and nested at most ``MAX_DEPTH`` levels deep
(operators, signs and calls; a chain ``1+1+..`` nests one level per ``+``), well within Python's recursion
limit for parsing, compiling and evaluating it.
"""
import ast
import functools
import math
import operator
import sys

import numpy as np

CONSTANTS = {"pi": np.pi, "e": np.e}
FUNCTIONS = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "log": np.log,
             "sqrt": np.sqrt, "abs": np.abs, "atan": np.arctan}
REDUCTIONS = {"min": np.minimum, "max": np.maximum}  # any number of arguments >= 1
BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.Div: operator.truediv, ast.Pow: operator.pow}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_LENGTH = 1000  # characters
MAX_DEPTH = 100  # nesting levels


def to_float(number):
    """The int or float ``number`` as a float; ValueError for an int beyond the range of floats."""
    try:
        return float(number)
    except OverflowError:
        digits = int(math.log10(abs(number))) + 1
        raise ValueError(f"a {digits}-digit integer is too large (at most {sys.float_info.max:.3g})") from None


def _compile(node, variables, depth=0):
    """A function ``env -> value`` for the expression tree ``node`` at nesting level ``depth``;
    ValueError if not allowed."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested too deeply (more than {MAX_DEPTH} levels of operators, signs and calls)")
    depth += 1
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise ValueError(f"{node.value!r} is not a number")
        value = np.float64(to_float(node.value))
        if not np.isfinite(value):
            raise ValueError(f"{node.value} is too large")
        return lambda env: value
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            value = np.float64(CONSTANTS[node.id])
            return lambda env: value
        if node.id in variables:
            return lambda env: env[node.id]
        known = ", ".join([*CONSTANTS, *variables])
        raise ValueError(f"unknown name '{node.id}' (known: {known})")
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        op = BINARY[type(node.op)]
        left, right = _compile(node.left, variables, depth), _compile(node.right, variables, depth)
        return lambda env: op(left(env), right(env))
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        op, operand = UNARY[type(node.op)], _compile(node.operand, variables, depth)
        return lambda env: op(operand(env))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name = node.func.id
        if name not in FUNCTIONS and name not in REDUCTIONS:
            raise ValueError(f"unknown function '{name}' (known: {', '.join([*FUNCTIONS, *REDUCTIONS])})")
        args = [_compile(a, variables, depth) for a in node.args]
        if name in FUNCTIONS:
            if len(args) != 1:
                raise ValueError(f"{name}() takes exactly one argument")
            function, (arg,) = FUNCTIONS[name], args
            return lambda env: function(arg(env))
        if not args:
            raise ValueError(f"{name}() needs at least one argument")
        pairwise = REDUCTIONS[name]
        return lambda env: functools.reduce(pairwise, [a(env) for a in args])
    raise ValueError(f"'{ast.unparse(node)}' is not allowed (only numbers, + - * / **, parentheses, "
                     f"constants and functions)")


def _parse(text, variables):
    if not isinstance(text, str):
        raise ValueError(f"expected an expression string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ValueError(f"the expression is {len(text)} characters long (at most {MAX_LENGTH})")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        raise ValueError(f"invalid expression: {err.msg}") from None
    return _compile(tree.body, variables)


def evaluate_number(text):
    """The value of a constant expression such as ``"sqrt(3)/6"``, as a finite float."""
    expression = _parse(text, ())
    with np.errstate(all="raise"):
        try:
            value = float(expression({}))
        except FloatingPointError as err:
            raise ValueError(f"not a finite number ({err})") from None
    if not np.isfinite(value):
        raise ValueError("not a finite number")
    return value


def compile_time_function(text):
    """A vectorised function ``f(t)`` of the expression ``text`` in the variable ``t``."""
    expression = _parse(text, ("t",))

    def function(t):
        t = np.asarray(t, dtype=float)
        return expression({"t": t}) + 0.0 * t  # broadcast constants to the shape of t

    return function
