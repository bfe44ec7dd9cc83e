#!/usr/bin/env python3
"""tests/classad/reference.py: a reference model of HTCondor's ClassAd
language (default, non-strict evaluation) and a random expression
generator for the differential test of our evaluator.

    reference.py check [semantics.tab]   evaluate every line of the table
                                         with the model; print each line
                                         the model disagrees with; exit 1
                                         if there is one
    reference.py eval [EXPR...]          print the model's value of each
                                         expression (or of each stdin line)
    reference.py gen N [SEED]            print N random expressions and the
                                         model's values, EXPR<TAB>VALUE

The context is the MY ad and the TARGET ad in context.ad (next to this
file), read as our condor_q -l prints an ad.

Values are printed as HTCondor's ClassAdUnParser prints an attribute's
value in the old ClassAd syntax (what condor_q -l shows): reals with
"%.16G" (".0" appended when that looks like an integer), infinities and
NaN as real("INF"), real("-INF"), real("NaN"), zero as 0.0 or -0.0,
strings in double quotes with only the quote escaped, lists as
"{ a,b }", ads as "[ a = 1; b = 2 ]".  Inside strings made by string(),
strcat() and the like, values are in the new syntax, as HTCondor makes
them: reals with "%1.15E" (2.5 is "2.500000000000000E+00").

An expression that does not parse is "error" here, as an unparseable
attribute value is an error to HTCondor's matchmaking.
"""
import math
import os
import random as pyrandom
import re
import sys

INT_MIN = -(1 << 63)
INT_MAX = (1 << 63) - 1


def wrap(i):
    """Two's complement 64-bit wrap, as HTCondor's long long arithmetic."""
    return ((i + (1 << 63)) % (1 << 64)) - (1 << 63)


class _Special:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


UNDEF = _Special("undefined")
ERROR = _Special("error")


class ParseError(Exception):
    pass


class EvalFail(Exception):
    """Evaluation failed (HTCondor's Evaluate() returning false): error."""


# ---------------------------------------------------------------- values

class CList:
    """A list value: its (unevaluated) element expressions and their scope."""

    def __init__(self, exprs, scope, made=False):
        self.exprs = exprs
        self.scope = scope
        # Made by a function (split, ...): HTCondor's other kind of list,
        # never identical (=?=) to a written one.
        self.made = made


class CAd:
    """An ad: attribute name (lower case) -> (name as written, expr)."""

    def __init__(self, parent=None):
        self.attrs = {}
        self.parent = parent
        self.alt = None       # alternate scope (TARGET for MY and back)
        self.top = None       # "my" ad of this scope
        self.other = None     # "target" ad of this scope

    def set(self, name, expr):
        self.attrs[name.lower()] = (name, expr)

    def lookup(self, name):
        e = self.attrs.get(name.lower())
        return None if e is None else e[1]


class RelTime:
    """A relative time (seconds)."""

    def __init__(self, secs):
        self.secs = secs


class AbsTime:
    """An absolute time: seconds since the epoch and a zone offset."""

    def __init__(self, secs, offset):
        self.secs = secs
        self.offset = offset


class Unmodelled(Exception):
    """Something the model does not cover (operators on times)."""


def is_bool(v):
    return type(v) is bool


def is_int(v):
    return type(v) is int


def is_real(v):
    return type(v) is float


def is_str(v):
    return type(v) is str


def is_num(v):
    return type(v) in (bool, int, float)


# ---------------------------------------------------------------- lexer

PUNCT = ["=?=", "=!=", ">>>", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
         "?:", "<", ">", "=", "+", "-", "*", "/", "%", "!", "~", "&", "|",
         "^", "?", ":", "(", ")", "[", "]", "{", "}", ",", ";", "."]
VALUE_END = ("int", "real", "str", "bool", "undef", "err", "id")


def convert_escapes(text):
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i < n - 1:
            i += 1
            c = text[i]
            m = {'"': '"', "'": "'", "?": "?", "a": "\a", "b": "\b",
                 "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                 "\\": "\\"}
            if c in m:
                c = m[c]
            elif c in "01234567":
                num = ord(c) - 48
                if i + 1 < n and text[i + 1] in "01234567":
                    i += 1
                    num = (num << 3) + ord(text[i]) - 48
                    if num < 0x20 and i + 1 < n and text[i + 1] in "01234567":
                        i += 1
                        num = (num << 3) + ord(text[i]) - 48
                c = chr(num & 0xff)
                if c == "\0":
                    raise ParseError("NUL in string")
        out.append(c)
        i += 1
    return "".join(out)


def lex(s):
    toks = []
    i = 0
    n = len(s)
    while True:
        while i < n and s[i] in " \t\n\r\f\v":
            i += 1
        if i >= n:
            toks.append(("end", None))
            return toks
        c = s[i]
        last = toks[-1][0] if toks else None
        lastv = toks[-1][1] if toks else None
        minus_is_op = (last in VALUE_END or
                       (last == "p" and lastv in (")", "]", "}", ".")))
        if (c.isdigit() or (c == "." and i + 1 < n and s[i + 1].isdigit()
                            and not (last == "p" and lastv == "."))
                or (c == "-" and not minus_is_op and i + 1 < n and
                    (s[i + 1].isdigit() or (s[i + 1] == "." and i + 2 < n
                                            and s[i + 2].isdigit())))):
            j, tok = lex_number(s, i)
            toks.append(tok)
            i = j
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (s[j].isalnum() or s[j] == "_"):
                j += 1
            w = s[i:j]
            lw = w.lower()
            if lw == "true":
                toks.append(("bool", True))
            elif lw == "false":
                toks.append(("bool", False))
            elif lw == "undefined":
                toks.append(("undef", None))
            elif lw == "error":
                toks.append(("err", None))
            elif lw == "is":
                toks.append(("p", "=?="))
            elif lw == "isnt":
                toks.append(("p", "=!="))
            else:
                toks.append(("id", w))
            i = j
            continue
        if c in "\"'":
            parts = []
            while True:
                j = i + 1
                odd = False
                while j < n and (s[j] != c or odd):
                    odd = (s[j] == "\\" and not odd)
                    j += 1
                if j >= n:
                    raise ParseError("unterminated string")
                parts.append(s[i + 1:j])
                k = j + 1
                while k < n and s[k].isspace():
                    k += 1
                if k < n and s[k] == c:
                    i = k
                    continue
                i = j + 1
                break
            text = convert_escapes("".join(parts))
            toks.append(("str" if c == '"' else "id", text))
            continue
        if c == "?":
            k = i + 1
            while k < n and s[k] in " \t\n\r\f\v":
                k += 1
            if k < n and s[k] == ":":
                toks.append(("p", "?:"))
                i = k + 1
                continue
        for p in PUNCT:
            if s.startswith(p, i):
                toks.append(("p", p))
                i += len(p)
                break
        else:
            raise ParseError("bad character %r" % c)


def lex_number(s, i):
    n = len(s)
    j = i
    if s[j] == "-":
        j += 1
    start_digits = j
    kind = None
    if s[j] == "0" and j + 1 < n and s[j + 1] in "xX":
        j += 2
        k = j
        while j < n and s[j] in "0123456789abcdefABCDEF":
            j += 1
        # Old ClassAd semantics (HTCondor's default): no hexadecimal.
        raise ParseError("no hexadecimal integers")
    while j < n and s[j].isdigit():
        j += 1
    if j > start_digits:
        kind = "int"
    if j < n and s[j] == ".":
        if j + 1 < n and s[j + 1].isdigit():
            j += 1
            while j < n and s[j].isdigit():
                j += 1
            kind = "real"
        elif kind is not None:
            raise ParseError("digit required after '.'")
    if j < n and s[j] in "eE":
        kind = "real"
        j += 1
        if j < n and s[j] in "+-":
            j += 1
        if not (j < n and s[j].isdigit()):
            raise ParseError("bad exponent")
        while j < n and s[j].isdigit():
            j += 1
    text = s[i:j]
    if kind == "int" and s[start_digits] == "0" and j - start_digits > 1:
        # ... and no octal: a leading zero is an error.
        raise ParseError("leading zero")
    if kind == "int":
        v = int(text, 10)
        if v < INT_MIN or v > INT_MAX:
            raise ParseError("integer out of range")
        return j, ("int", v)
    try:
        v = float(text)
    except OverflowError:
        v = math.inf if text[0] != "-" else -math.inf
    return j, ("real", v)


# ---------------------------------------------------------------- parser
# Expression nodes are tuples:
#   ("lit", value) ("attr", name, absolute) ("sel", expr, name)
#   ("un", op, e) ("bin", op, a, b) ("cond", c, a, b) ("elvis", a, b)
#   ("sub", a, b) ("call", name, [args]) ("list", [exprs])
#   ("ad", [(name, expr)]) ("paren", e)

BINPREC = [
    ["||"], ["&&"], ["|"], ["^"], ["&"],
    ["==", "!=", "=?=", "=!="], ["<", "<=", ">", ">="],
    ["<<", ">>", ">>>"], ["+", "-"], ["*", "/", "%"],
]


class Parser:
    def __init__(self, s):
        self.t = lex(s)
        self.i = 0

    def peek(self):
        return self.t[self.i]

    def next(self):
        t = self.t[self.i]
        self.i += 1
        return t

    def accept(self, p):
        if self.t[self.i] == ("p", p):
            self.i += 1
            return True
        return False

    def expect(self, p):
        if not self.accept(p):
            raise ParseError("expected %s" % p)

    def parse_all(self):
        e = self.expr()
        if self.peek()[0] != "end":
            raise ParseError("junk after expression")
        return e

    def expr(self):
        c = self.binary(0)
        if self.accept("?"):
            a = self.expr()
            self.expect(":")
            b = self.expr()
            return ("cond", c, a, b)
        return c

    def binary(self, level):
        if level == len(BINPREC):
            return self.unary()
        a = self.binary(level + 1)
        while True:
            t = self.peek()
            if t[0] == "p" and t[1] in BINPREC[level]:
                self.next()
                b = self.binary(level + 1)
                a = ("bin", t[1], a, b)
            else:
                return a

    def unary(self):
        t = self.peek()
        if t[0] == "p" and t[1] in ("-", "+", "!", "~"):
            self.next()
            return ("un", t[1], self.unary())
        return self.postfix()

    def postfix(self):
        e = self.primary()
        while True:
            if self.accept("."):
                t = self.next()
                if t[0] != "id":
                    raise ParseError("attribute name expected")
                e = ("sel", e, t[1])
            elif self.accept("["):
                b = self.expr()
                self.expect("]")
                e = ("sub", e, b)
            elif self.accept("?:"):
                # a ?: b binds like a subscript: b is a postfix expression
                e = ("elvis", e, self.postfix())
            else:
                return e

    def primary(self):
        t = self.next()
        k, v = t
        if k in ("int", "real", "str", "bool"):
            return ("lit", v)
        if k == "undef":
            return ("lit", UNDEF)
        if k == "err":
            return ("lit", ERROR)
        if k == "id":
            if self.accept("("):
                args = []
                if not self.accept(")"):
                    while True:
                        args.append(self.expr())
                        if self.accept(")"):
                            break
                        self.expect(",")
                return ("call", v, args)
            return ("attr", v, False)
        if t == ("p", "."):
            t2 = self.next()
            if t2[0] != "id":
                raise ParseError("attribute name expected")
            return ("attr", t2[1], True)
        if t == ("p", "("):
            e = self.expr()
            self.expect(")")
            return ("paren", e)
        if t == ("p", "{"):
            items = []
            if not self.accept("}"):
                while True:
                    items.append(self.expr())
                    if self.accept("}"):
                        break
                    self.expect(",")
            return ("list", items)
        if t == ("p", "["):
            attrs = []
            while True:
                while self.accept(";"):     # empty entries are allowed
                    pass
                if self.accept("]"):
                    break
                n = self.next()
                if n[0] != "id":
                    raise ParseError("attribute name expected in ad")
                self.expect("=")
                attrs = [x for x in attrs if x[0].lower() != n[1].lower()]
                attrs.append((n[1], self.expr()))
                if self.peek() not in (("p", ";"), ("p", "]")):
                    raise ParseError("; or ] expected in ad")
            return ("ad", attrs)
        raise ParseError("unexpected token %r" % (t,))


def parse(s):
    return Parser(s).parse_all()


# ---------------------------------------------------------------- unparser

def fmt_real(r, old):
    if r == 0.0:
        return "-0.0" if math.copysign(1.0, r) < 0 else "0.0"
    if math.isnan(r):
        return 'real("NaN")'
    if math.isinf(r):
        return 'real("-INF")' if r < 0 else 'real("INF")'
    if old:
        s = "%.16G" % r
        if not any(c in s for c in ".Ee"):
            s += ".0"
        return s
    return "%1.15E" % r


def fmt_string(s, old):
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
            continue
        if not old:
            m = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                 "\r": "\\r", "\t": "\\t", "\v": "\\v", "\\": "\\\\"}
            if ch in m:
                out.append(m[ch])
                continue
            if not (0x20 <= ord(ch) < 0x7f):
                out.append("\\%03o" % (ord(ch) & 0xff))
                continue
        out.append(ch)
    out.append('"')
    return "".join(out)


RESERVED = {"true", "false", "undefined", "error", "is", "isnt"}


def fmt_name(n):
    if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", n) and n.lower() not in RESERVED:
        return n
    return "'" + n.replace("'", "\\'") + "'"


def unparse_value(v, old=True):
    if v is UNDEF:
        return "undefined"
    if v is ERROR:
        return "error"
    if is_bool(v):
        return "true" if v else "false"
    if is_int(v):
        return str(v)
    if is_real(v):
        return fmt_real(v, old)
    if is_str(v):
        return fmt_string(v, old)
    if isinstance(v, CList):
        return "{ " + ",".join(unparse_expr(e, old) for e in v.exprs) + " }"
    if isinstance(v, CAd):
        return "[ " + "; ".join(fmt_name(n) + " = " + unparse_expr(e, old)
                                for n, e in v.attrs.values()) + " ]"
    if isinstance(v, RelTime):
        return 'relTime("' + reltime_string(v.secs) + '")'
    if isinstance(v, AbsTime):
        return 'absTime("' + abstime_string(v) + '")'
    raise TypeError(v)


def abstime_string(t):
    import time as _time
    tz = t.offset
    sign = "+" if tz > 0 else "-"
    tz = abs(tz)
    tm = _time.gmtime(t.secs + t.offset)
    return (_time.strftime("%Y-%m-%dT%H:%M:%S", tm) +
            "%s%02d:%02d" % (sign, tz // 3600, (tz // 60) % 60))


def reltime_string(r):
    out = ""
    if r < 0:
        out = "-"
        r = -r
    frac = r - math.floor(r)
    days = int(r)
    hrs = days % 86400
    mins = hrs % 3600
    secs = (mins % 60) + frac
    days //= 86400
    hrs //= 3600
    mins //= 60
    g = lambda x: "%02g" % x
    if days:
        return out + ("%d+%02d:%02d:%02d" % (days, hrs, mins, int(secs)) if frac == 0
                      else "%d+%02d:%02d:%s" % (days, hrs, mins, g(secs)))
    if hrs:
        return out + ("%02d:%02d:%02d" % (hrs, mins, int(secs)) if frac == 0
                      else "%02d:%02d:%s" % (hrs, mins, g(secs)))
    if mins:
        return out + ("%02d:%02d" % (mins, int(secs)) if frac == 0
                      else "%02d:%s" % (mins, g(secs)))
    return out + ("%02d" % int(secs) if frac == 0 else g(secs))


OPSTR_NEW = {"=?=": " is ", "=!=": " isnt "}


def unparse_expr(e, old=True):
    k = e[0]
    if k == "lit":
        return unparse_value(e[1], old)
    if k == "attr":
        return ("." if e[2] else "") + fmt_name(e[1])
    if k == "sel":
        return unparse_expr(e[1], old) + "." + e[2]
    if k == "un":
        return " " + e[1] + unparse_expr(e[2], old)
    if k == "bin":
        op = " " + e[1] + " "
        if not old:
            op = OPSTR_NEW.get(e[1], op)
        return unparse_expr(e[2], old) + op + unparse_expr(e[3], old)
    if k == "cond":
        return (unparse_expr(e[1], old) + " ? " + unparse_expr(e[2], old) +
                " : " + unparse_expr(e[3], old))
    if k == "elvis":
        return unparse_expr(e[1], old) + " ?: " + unparse_expr(e[2], old)
    if k == "sub":
        return unparse_expr(e[1], old) + "[" + unparse_expr(e[2], old) + "]"
    if k == "call":
        return e[1] + "(" + ",".join(unparse_expr(a, old) for a in e[2]) + ")"
    if k == "list":
        return "{ " + ",".join(unparse_expr(x, old) for x in e[1]) + " }"
    if k == "ad":
        return "[ " + "; ".join(fmt_name(n) + " = " + unparse_expr(x, old)
                                for n, x in e[1]) + " ]"
    if k == "paren":
        return "(" + unparse_expr(e[1], old) + ")"
    raise TypeError(e)


# ---------------------------------------------------------------- conversions

STRTOD = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
    r"(?:[pP][+-]?\d+)?|(?:infinity|inf)|nan(?:\([0-9A-Za-z_]*\))?|"
    r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))", re.IGNORECASE)


def strtod(s):
    """C strtod: (value, consumed anything?)."""
    m = STRTOD.match(s)
    if not m:
        return 0.0, False
    t = m.group(1)
    tl = t.lower().lstrip("+-")
    neg = t.startswith("-")
    if tl.startswith("0x"):
        body = tl
        if "p" not in body:
            body += "p0"
        v = float.fromhex(body)
        return (-v if neg else v), True
    if tl.startswith("inf"):
        return (-math.inf if neg else math.inf), True
    if tl.startswith("nan"):
        return math.nan, True
    try:
        return float(t), True
    except OverflowError:
        return (-math.inf if neg else math.inf), True


def to_real(v):
    """convertValueToRealValue: (ok, value)."""
    if isinstance(v, RelTime):
        return True, float(v.secs)
    if isinstance(v, AbsTime):
        return True, float(v.secs)
    if v is UNDEF:
        return False, UNDEF
    if v is ERROR or isinstance(v, (CList, CAd)):
        return False, ERROR
    if is_str(v):
        r, ok = strtod(v)
        if not ok and r == 0.0:
            return False, ERROR
        return True, r
    if is_bool(v):
        return True, 1.0 if v else 0.0
    if is_int(v):
        return True, float(v)
    return True, v


def c_double_to_ll(r):
    if math.isnan(r) or math.isinf(r) or r >= 2.0 ** 63 or r < -2.0 ** 63:
        # undefined behaviour in HTCondor's C++ (x86-64 gives INT64_MIN)
        raise Unmodelled("real out of the range of integers")
    return int(r)


def to_int(v):
    if isinstance(v, (RelTime, AbsTime)):
        return True, c_double_to_ll(float(v.secs))
    if v is UNDEF:
        return False, UNDEF
    if v is ERROR or isinstance(v, (CList, CAd)):
        return False, ERROR
    if is_str(v):
        r, ok = strtod(v)
        i = c_double_to_ll(r)
        if not ok and i == 0:
            return False, ERROR
        return True, i
    if is_bool(v):
        return True, 1 if v else 0
    if is_int(v):
        return True, v
    return True, c_double_to_ll(v)


def to_string(v):
    if isinstance(v, RelTime):
        return True, reltime_string(v.secs)
    if isinstance(v, AbsTime):
        return True, abstime_string(v)
    if v is UNDEF:
        return False, UNDEF
    if v is ERROR:
        return False, ERROR
    if is_str(v):
        return True, v
    return True, unparse_value(v, old=False)


def bool_equiv(v):
    """IsBooleanValueEquiv: (ok, b)."""
    if is_bool(v):
        return True, v
    if is_int(v) or is_real(v):
        return True, v != 0
    return False, False


# ---------------------------------------------------------------- operators

def coerce(a, b):
    """coerceToNumber: (kind, a, b)."""
    if isinstance(a, CAd) or isinstance(b, CAd):
        return "ad", a, b
    if isinstance(a, CList) or isinstance(b, CList):
        return "list", a, b
    if is_str(a) or is_str(b):
        return "str", a, b
    if a is UNDEF or b is UNDEF:
        return "undef", a, b
    if a is ERROR or b is ERROR:
        return "err", a, b
    if is_bool(a):
        a = int(a)
    if is_bool(b):
        b = int(b)
    if is_int(a) and is_int(b):
        return "int", a, b
    if is_real(a) and is_real(b):
        return "real", a, b
    return "real", float(a), float(b)


def vtype(v):
    if isinstance(v, RelTime):
        return "reltime"
    if isinstance(v, AbsTime):
        return "abstime"
    if v is UNDEF:
        return "undef"
    if v is ERROR:
        return "err"
    if is_bool(v):
        return "bool"
    if is_int(v):
        return "int"
    if is_real(v):
        return "real"
    if is_str(v):
        return "str"
    if isinstance(v, CList):
        return "list"
    return "ad"


def casecmp(a, b):
    a = a.lower()
    b = b.lower()
    return (a > b) - (a < b)


def rel(op, c):
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0,
            "==": c == 0, "!=": c != 0, "=?=": c == 0, "=!=": c != 0}[op]


def cmp_num(op, a, b):
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
            "==": a == b, "!=": a != b, "=?=": a == b, "=!=": a != b}[op]


def time_compare(op, a, b):
    """A comparison with a time on one side."""
    ta, tb = vtype(a), vtype(b)
    if op in ("=?=", "=!="):
        if ta != tb:
            return op == "=!="
        same = a.secs == b.secs
        if ta == "abstime":
            same = same and a.offset == b.offset
        return same if op == "=?=" else not same
    if ta != tb or ta not in ("abstime", "reltime"):
        return ERROR
    return rel(op, (a.secs > b.secs) - (a.secs < b.secs))


def do_compare(op, a, b):
    if isinstance(a, (RelTime, AbsTime)) or isinstance(b, (RelTime, AbsTime)):
        return time_compare(op, a, b)
    if op in ("=?=", "=!="):
        ta, tb = vtype(a), vtype(b)
        if ta != tb:
            return op == "=!="
        if ta in ("undef", "err"):
            return op == "=?="
        if ta == "list" and a.made != b.made:
            return op == "=!="
        if ta in ("list", "ad"):
            return ERROR
        if ta == "str":
            c = (a > b) - (a < b)
            return rel(op, c)
        return cmp_num(op, a, b)
    kind, a, b = coerce(a, b)
    if kind == "str":
        if not (is_str(a) and is_str(b)):
            return ERROR
        return rel(op, casecmp(a, b))
    if kind in ("int", "real"):
        return cmp_num(op, a, b)
    return ERROR


def c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def do_arith(op, a, b):
    for v in (a, b):
        if not is_num(v):
            return ERROR
    kind, a, b = coerce(a, b)
    if kind == "int":
        if op == "+":
            return wrap(a + b)
        if op == "-":
            return wrap(a - b)
        if op == "*":
            return wrap(a * b)
        if op == "/":
            if a == INT_MIN and b == -1:
                return INT_MAX
            if b == 0:
                return ERROR
            return c_div(a, b)
        if op == "%":
            if a == INT_MIN and b == -1:
                return 0
            if b == 0:
                return ERROR
            return a - b * c_div(a, b)
    # real
    if op == "%":
        return ERROR
    try:
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        else:
            if b == 0.0:
                if a == 0.0 or math.isnan(a):
                    r = math.nan
                else:
                    neg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
                    r = -math.inf if neg else math.inf
            else:
                r = a / b
    except OverflowError:
        r = math.inf
    if r == math.inf:
        return ERROR
    return r


def do_bitwise(op, a, b):
    if not (is_int(a) and is_int(b)):
        return ERROR
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "<<":
        return wrap(a << (b & 63)) if 0 <= b < 64 else ERROR
    if op == ">>":
        if b < 0:
            return a if a < 0 else ERROR
        return a >> min(b, 64) if a < 0 else (a >> b if b < 64 else ERROR)
    if op == ">>>":
        if a >= 0:
            return a >> b if 0 <= b < 64 else ERROR
        if not 1 <= b <= 64:
            return ERROR
        return ((a >> 1) & INT_MAX) >> (b - 1)
    raise ValueError(op)


def time_arith(op, a, b):
    """Arithmetic with a time on one side: only the sums, differences and
    scalings HTCondor's doTimeArithmetic defines; the rest is error."""
    ta, tb = vtype(a), vtype(b)
    if op == "+" and (ta, tb) == ("abstime", "reltime"):
        return AbsTime(a.secs + int(b.secs), a.offset)
    if op == "+" and (ta, tb) == ("reltime", "abstime"):
        return AbsTime(b.secs + int(a.secs), b.offset)
    if op == "-" and (ta, tb) == ("abstime", "reltime"):
        return AbsTime(a.secs - int(b.secs), a.offset)
    if op == "-" and (ta, tb) == ("abstime", "abstime"):
        return RelTime(a.secs - b.secs)
    if op in "+-" and (ta, tb) == ("reltime", "reltime"):
        return RelTime(a.secs + b.secs if op == "+" else a.secs - b.secs)
    if op in "*/" and ta == "reltime" and tb in ("int", "real"):
        if op == "/" and b == 0:
            raise Unmodelled("a relative time divided by zero")
        return RelTime(a.secs * b if op == "*" else a.secs / b)
    if op == "*" and ta in ("int", "real") and tb == "reltime":
        return RelTime(a * b.secs)
    return ERROR


def binop(op, a, b):
    """A strict binary operator on two values."""
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEF or b is UNDEF:
        return UNDEF
    if isinstance(a, (RelTime, AbsTime)) or isinstance(b, (RelTime, AbsTime)):
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return do_compare(op, a, b)
        if op in ("+", "-", "*", "/"):
            return time_arith(op, a, b)
        return ERROR
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return do_compare(op, a, b)
    if op in ("+", "-", "*", "/", "%"):
        return do_arith(op, a, b)
    return do_bitwise(op, a, b)


def unop(op, v):
    if isinstance(v, RelTime) and op in "+-":
        return v if op == "+" else RelTime(-v.secs)
    if isinstance(v, (RelTime, AbsTime)):
        return ERROR
    if op == "+":
        if is_bool(v) or is_str(v) or isinstance(v, (CList, CAd)):
            return ERROR
        return v
    if v is ERROR:
        return ERROR
    if v is UNDEF:
        return UNDEF
    if op == "-":
        if is_int(v):
            return wrap(-v)
        if is_real(v):
            return -v
        return ERROR
    if op == "!":
        ok, b = bool_equiv(v)
        return (not b) if ok else ERROR
    if op == "~":
        return ~v if is_int(v) else ERROR
    raise ValueError(op)


def logical(op, a, get_b):
    ok, b1 = bool_equiv(a)
    if op == "||":
        if ok and b1:
            return True
    else:
        if ok and not b1:
            return False
    if a is ERROR:
        return ERROR
    b = get_b()
    if ok:
        a = b1
    okb, b2 = bool_equiv(b)
    if okb:
        b = b2
    if not (is_bool(a) or a is UNDEF):
        return ERROR
    if not (is_bool(b) or b is UNDEF or b is ERROR):
        return ERROR
    if is_bool(a):          # true && b, false || b
        return b
    # a is undefined
    if not is_bool(b):
        return b
    if op == "||":
        return True if b else UNDEF
    return UNDEF if b else False


# ---------------------------------------------------------------- evaluator

class Ctx:
    def __init__(self, my, target):
        self.my = my
        self.target = target
        self.stack = []
        self.depth = 0


def find_attr(ctx, scope, name, unscoped=True):
    """Look name up from scope: (ad where found, expr), (None, ("adref",
    ad)) for MY, TARGET, PARENT and the like, or (None, None).

    The ad is searched, then the ads it is nested in; a special name
    not defined as an attribute is taken at the first level: MY (or
    SELF) is the ad searched, PARENT the ad it is nested in.  Past the
    outermost ad is the match context, where TARGET names the other
    ad.  Only then, and only for an unscoped name in a top-level ad,
    the other ad is searched (HTCondor's alternate scope)."""
    cur = scope
    ln = name.lower()
    top = None
    while cur is not None:
        e = cur.lookup(name)
        if e is not None:
            return cur, e
        if ln in ("my", "self"):
            return None, ("adref", cur)
        if ln == "parent":
            return None, ("adref", cur.parent)
        if ln in ("toplevel", "root"):
            return None, ("adref", ctx.my)
        if ln == "currenttime":
            return cur, ("call", "time", [])
        top = cur
        cur = cur.parent
    if ln == "target" and top is not None:
        return None, ("adref", top.other)
    if unscoped and scope is not None and scope.alt is not None:
        e = scope.alt.lookup(name)
        if e is not None:
            return scope.alt, e
    return None, None


def scope_top(scope):
    cur = scope
    while cur is not None and cur.parent is not None:
        cur = cur.parent
    return cur


def eval_attr_in(ctx, ad, e):
    key = (id(ad), id(e))
    if key in ctx.stack:
        return UNDEF
    ctx.stack.append(key)
    try:
        return ev(ctx, e, ad)
    finally:
        ctx.stack.pop()


def ev(ctx, e, scope):
    ctx.depth += 1
    if ctx.depth > 400:
        ctx.depth -= 1
        raise EvalFail("too deep")
    try:
        return _ev(ctx, e, scope)
    finally:
        ctx.depth -= 1


def _ev(ctx, e, scope):
    k = e[0]
    if k == "lit":
        return e[1]
    if k == "paren":
        return ev(ctx, e[1], scope)
    if k == "attr":
        if e[2]:
            ad = ctx.my
            x = ad.lookup(e[1])
            return UNDEF if x is None else eval_attr_in(ctx, ad, x)
        ad, x = find_attr(ctx, scope, e[1])
        if x is None:
            return UNDEF
        if x[0] == "adref":
            return UNDEF if x[1] is None else x[1]
        if ad is None:
            return ev(ctx, x, scope)
        return eval_attr_in(ctx, ad, x)
    if k == "sel":
        base = ev(ctx, e[1], scope)
        return select(ctx, base, e[2])
    if k == "list":
        return CList(e[1], scope)
    if k == "ad":
        ad = CAd(parent=scope)
        for n, x in e[1]:
            ad.set(n, x)
        return ad
    if k == "un":
        return unop(e[1], ev(ctx, e[2], scope))
    if k == "bin":
        op = e[1]
        if op in ("&&", "||"):
            return logical(op, ev(ctx, e[2], scope),
                           lambda: ev(ctx, e[3], scope))
        a = ev(ctx, e[2], scope)
        b = ev(ctx, e[3], scope)
        if op in ("=?=", "=!="):
            return do_compare(op, a, b)
        return binop(op, a, b)
    if k == "cond":
        c = ev(ctx, e[1], scope)
        ok, b = bool_equiv(c)
        if ok:
            return ev(ctx, e[2] if b else e[3], scope)
        if c is UNDEF:
            return UNDEF
        return ERROR
    if k == "elvis":
        a = ev(ctx, e[1], scope)
        if a is not UNDEF:
            return a
        return ev(ctx, e[2], scope)
    if k == "sub":
        a = ev(ctx, e[1], scope)
        b = ev(ctx, e[2], scope)
        if a is ERROR or b is ERROR:
            return ERROR
        if a is UNDEF or b is UNDEF:
            return UNDEF
        if isinstance(a, CAd) and is_str(b):
            x = a.lookup(b)
            if x is None:
                return UNDEF
            return eval_attr_in(ctx, a, x)
        if isinstance(a, CList) and is_int(b):
            if b < 0 or b >= len(a.exprs):
                return ERROR
            return ev(ctx, a.exprs[b], a.scope)
        return ERROR
    if k == "call":
        f = FUNCS.get(e[1].lower())
        if f is None:
            return ERROR
        return f(ctx, e[1].lower(), e[2], scope)
    raise TypeError(e)


def select(ctx, base, name):
    if base is UNDEF:
        return UNDEF
    if base is ERROR:
        return ERROR
    if isinstance(base, CAd):
        ad, x = find_attr(ctx, base, name, unscoped=False)
        if x is None:
            return UNDEF
        if x[0] == "adref":
            return UNDEF if x[1] is None else x[1]
        return eval_attr_in(ctx, ad, x)
    if isinstance(base, CList):
        out = []
        for x in base.exprs:
            v = ev(ctx, x, base.scope)
            v = select(ctx, v, name)
            out.append(("lit", v) if not isinstance(v, (CList, CAd))
                       else value_expr(v))
        return CList(out, None)
    return ERROR


def value_expr(v):
    if isinstance(v, CList):
        return ("list", v.exprs)
    if isinstance(v, CAd):
        return ("ad", list(v.attrs.values()))
    return ("lit", v)


# ---------------------------------------------------------------- functions

FUNCS = {}


def fn(*names):
    def deco(f):
        for n in names:
            FUNCS[n.lower()] = f
        return f
    return deco


def args_eval(ctx, args, scope):
    return [ev(ctx, a, scope) for a in args]


@fn("isUndefined", "isError", "isString", "isInteger", "isReal", "isList",
    "isClassAd", "isBoolean", "isAbstime", "isReltime")
def f_istype(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    t = {"isundefined": "undef", "iserror": "err", "isstring": "str",
         "isinteger": "int", "isreal": "real", "islist": "list",
         "isclassad": "ad", "isboolean": "bool", "isabstime": "abstime",
         "isreltime": "reltime"}.get(name)
    if t is None:
        return False
    return vtype(v) == t


@fn("member", "identicalMember")
def f_member(ctx, name, args, scope):
    if len(args) != 2:
        return ERROR
    a0, a1 = args_eval(ctx, args, scope)
    use_is = name == "identicalmember"
    if a1 is UNDEF or (not use_is and a0 is UNDEF):
        return UNDEF
    if not isinstance(a1, CList) or isinstance(a0, (CList, CAd)):
        return ERROR
    if not use_is and a0 is ERROR:
        return ERROR
    for x in a1.exprs:
        v = ev(ctx, x, a1.scope)
        r = do_compare("=?=", v, a0) if use_is else binop("==", v, a0)
        if r is True:
            return True
    return False


@fn("size")
def f_size(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if v is UNDEF:
        return UNDEF
    if isinstance(v, CList):
        return len(v.exprs)
    if isinstance(v, CAd):
        return len(v.attrs)
    if is_str(v):
        return len(v.encode("latin-1", "replace"))
    return ERROR


def arith_op(op, a, b):
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEF or b is UNDEF:
        return UNDEF
    return do_arith(op, a, b)


@fn("sum", "avg")
def f_sumavg(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    lv = ev(ctx, args[0], scope)
    if lv is UNDEF:
        return UNDEF
    if not isinstance(lv, CList):
        return ERROR
    result = 0
    n = 0
    first = True
    for x in lv.exprs:
        n += 1
        v = ev(ctx, x, lv.scope)
        if v is UNDEF:
            n -= 1
            continue
        if not is_num(v):
            return ERROR
        if first:
            result = v
            first = False
        else:
            result = arith_op("+", result, v)
    if name == "sum":
        return result
    if n > 0:
        return arith_op("/", result, float(n))
    return result


@fn("min", "max")
def f_minmax(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    lv = ev(ctx, args[0], scope)
    if lv is UNDEF:
        return UNDEF
    if not isinstance(lv, CList):
        return ERROR
    op = "<" if name == "min" else ">"
    result = UNDEF
    first = True
    for x in lv.exprs:
        v = ev(ctx, x, lv.scope)
        if v is UNDEF:
            continue
        if not is_num(v):
            return ERROR
        if first:
            result = v
            first = False
            continue
        # HTCondor's comparison promotes both operands in place, and the
        # bound keeps the promoted value: booleans become integers, an
        # integer beside a real a real.
        if isinstance(v, bool):
            v = int(v)
        if isinstance(result, bool):
            result = int(result)
        if isinstance(v, float) and not isinstance(result, float):
            result = float(result)
        elif isinstance(result, float) and not isinstance(v, float):
            v = float(v)
        if binop(op, v, result) is True:
            result = v
    return result


@fn("anyCompare", "allCompare")
def f_listcompare(ctx, name, args, scope):
    if len(args) != 3:
        return ERROR
    s = ev(ctx, args[0], scope)
    if s is UNDEF:
        return UNDEF
    if not is_str(s):
        return ERROR
    ops = {"<": "<", "<=": "<=", "!=": "!=", "==": "==", ">": ">",
           ">=": ">=", "is": "=?=", "isnt": "=!="}
    if s not in ops:
        return ERROR
    op = ops[s]
    lv = ev(ctx, args[1], scope)
    if lv is UNDEF:
        return UNDEF
    if not isinstance(lv, CList):
        return ERROR
    cv = ev(ctx, args[2], scope)
    need_all = name == "allcompare"
    for x in lv.exprs:
        v = ev(ctx, x, lv.scope)
        r = do_compare(op, v, cv) if op in ("=?=", "=!=") else binop(op, v, cv)
        if not is_bool(r):
            if r is UNDEF:
                return False
            return ERROR
        if r and not need_all:
            return True
        if not r and need_all:
            return False
    return need_all


@fn("time")
def f_time(ctx, name, args, scope):
    import time
    if args:
        return ERROR
    return int(time.time())


@fn("strcat", "join")
def f_strcat(ctx, name, args, scope):
    is_join = name == "join"
    items = list(args)
    iscope = [scope] * len(items)
    if is_join and 0 < len(args) <= 2:
        lv = ev(ctx, args[-1], scope)
        if isinstance(lv, CList):
            items = list(lv.exprs)
            iscope = [lv.scope] * len(items)
            if len(args) > 1:
                items.insert(0, args[0])
                iscope.insert(0, scope)
            else:
                items.insert(0, ("lit", ""))
                iscope.insert(0, scope)
    buf = ""
    sep = ""
    undef = False
    defined = False
    for i, x in enumerate(items):
        v = ev(ctx, x, iscope[i])
        ok, s = to_string(v)
        if not ok:
            if s is UNDEF:
                undef = True
                if is_join:
                    continue
                defined = False
                break
            return ERROR
        if is_join:
            if i == 0:
                sep = s
                continue
            if buf:
                buf += sep
        defined = True
        buf += s
    if undef and not defined:
        return UNDEF
    return buf


@fn("toUpper", "toLower")
def f_case(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    ok, s = to_string(ev(ctx, args[0], scope))
    if not ok:
        return s
    return s.upper() if name == "toupper" else s.lower()


@fn("substr")
def f_substr(ctx, name, args, scope):
    if not 2 <= len(args) <= 3:
        return ERROR
    vs = args_eval(ctx, args, scope)
    if any(v is UNDEF for v in vs):
        return UNDEF
    if not is_str(vs[0]) or not all(is_int(v) for v in vs[1:]):
        return ERROR
    buf = vs[0]
    alen = len(buf)
    off = vs[1]
    ln = vs[2] if len(vs) > 2 else 0
    if off < 0:
        off = max(alen + off, 0)
    elif off >= alen:
        off = alen
    if ln <= 0:
        ln = max(alen - off + ln, 0)
    elif ln > alen - off:
        ln = alen - off
    if len(vs) == 3 and vs[2] == 0:
        ln = 0
    return buf[off:off + ln]


def natural_cmp(s1, s2):
    a = s1.encode("latin-1") + b"\0"
    b = s2.encode("latin-1") + b"\0"
    i = 0
    while a[i] and a[i] == b[i]:
        i += 1
    if a[i] == b[i]:
        return 0
    isd = lambda c: 48 <= c <= 57
    n1 = i
    while n1 > 0 and isd(a[n1 - 1]):
        n1 -= 1
    n2 = n1          # same offset in both strings
    if n1 == i and (not isd(a[i]) or not isd(b[i])):
        return a[i] - b[i]
    z1 = n1
    while a[z1] == 48:
        z1 += 1
    z2 = n2
    while b[z2] == 48:
        z2 += 1
    if z1 > n1 and not isd(a[z1]):
        z1 -= 1
    if z2 > n2 and not isd(b[z2]):
        z2 -= 1
    if z1 - n1 != z2 - n2:
        return (z2 - n2) - (z1 - n1)
    if z1 > n1:
        return a[i] - b[i]
    e1 = z1
    while isd(a[e1]):
        e1 += 1
    e2 = z2
    while isd(b[e2]):
        e2 += 1
    if e1 - n1 != e2 - n2:
        return (e1 - n1) - (e2 - n2)
    return a[i] - b[i]


@fn("versioncmp", "versionLE", "versionLT", "versionGE", "versionGT",
    "versionEQ")
def f_version(ctx, name, args, scope):
    if len(args) != 2:
        return ERROR
    l, r = args_eval(ctx, args, scope)
    if l is UNDEF or r is UNDEF:
        return UNDEF
    ok1, sl = to_string(l)
    ok2, sr = to_string(r)
    if not (ok1 and ok2):
        return ERROR
    c = natural_cmp(sl, sr)
    return {"versioncmp": c, "versionle": c <= 0, "versionlt": c < 0,
            "versionge": c >= 0, "versiongt": c > 0,
            "versioneq": c == 0}[name]


@fn("version_in_range")
def f_version_in_range(ctx, name, args, scope):
    if len(args) != 3:
        return ERROR
    t, lo, hi = args_eval(ctx, args, scope)
    if lo is UNDEF or hi is UNDEF:
        return UNDEF
    oks = [to_string(v) for v in (t, lo, hi)]
    if not all(o for o, _ in oks):
        return ERROR
    st, slo, shi = (s for _, s in oks)
    return natural_cmp(slo, st) <= 0 and natural_cmp(st, shi) <= 0


@fn("strcmp", "stricmp")
def f_strcmp(ctx, name, args, scope):
    if len(args) != 2:
        return ERROR
    a, b = args_eval(ctx, args, scope)
    if a is UNDEF or b is UNDEF:
        return UNDEF
    ok1, sa = to_string(a)
    ok2, sb = to_string(b)
    if not (ok1 and ok2):
        return ERROR
    if name == "stricmp":
        sa, sb = sa.lower(), sb.lower()
    return (sa > sb) - (sa < sb)


@fn("int")
def f_int(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    return to_int(ev(ctx, args[0], scope))[1]


@fn("real")
def f_real(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    return to_real(ev(ctx, args[0], scope))[1]


@fn("string")
def f_string(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    return to_string(ev(ctx, args[0], scope))[1]


@fn("bool")
def f_bool(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if v is UNDEF:
        return UNDEF
    if is_bool(v):
        return v
    if is_int(v) or is_real(v):
        return v != 0
    if isinstance(v, RelTime):
        return v.secs != 0
    if is_str(v):
        if v.lower() == "false":
            return False
        if v.lower() == "true":
            return True
        return UNDEF
    return ERROR


@fn("floor", "ceil", "ceiling", "round")
def f_round(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if is_int(v):
        return v
    ok, r = to_real(v)
    if not ok:
        return ERROR
    if math.isnan(r) or math.isinf(r):
        raise Unmodelled("real out of the range of integers")
    if name == "floor":
        x = math.floor(r)
    elif name in ("ceil", "ceiling"):
        x = math.ceil(r)
    else:
        x = round(r)            # rint: halves to even
    return c_double_to_ll(float(x))


@fn("pow", "quantize")
def f_math2(ctx, name, args, scope):
    if len(args) != 2:
        return ERROR
    a, b = args_eval(ctx, args, scope)
    if name == "pow":
        if is_int(a) and is_int(b) and b >= 0:
            try:
                return c_double_to_ll(math.pow(float(a), float(b)) + 0.5)
            except OverflowError:
                raise Unmodelled("pow out of the range of integers")
        ok1, ra = to_real(a)
        ok2, rb = to_real(b)
        if not (ok1 and ok2):
            return ERROR
        try:
            return math.pow(ra, rb)
        except OverflowError:
            return math.inf
        except ValueError:
            if ra == 0.0:
                return math.inf
            return math.nan
    ok, rval = to_real(a)
    if not ok:
        return ERROR
    if isinstance(b, CList):
        base = 0.0
        rbase = 0.0
        for x in b.exprs:
            base = ev(ctx, x, b.scope)
            okb, rb = to_real(base)
            if not okb:
                return ERROR
            rbase = rb
            if rbase >= rval:
                return base
        b = base
    else:
        okb, rbase = to_real(b)
        if not okb:
            return ERROR
    if is_int(b):
        if b == 0:
            return a
        if is_int(a):
            return wrap(c_div(a + b - 1, b) * b)
        return math.ceil(rval / b) * b * 1.0
    if -1e-8 <= rbase <= 1e-8:
        return a
    return float(math.ceil(rval / rbase) * rbase)


@fn("random")
def f_random(ctx, name, args, scope):
    if len(args) > 1:
        return ERROR
    v = ev(ctx, args[0], scope) if args else 1.0
    if is_int(v):
        if v <= 0:
            return ERROR
        return pyrandom.randrange(v)
    if is_real(v):
        if v <= 0:
            return ERROR
        return v * pyrandom.random()
    return ERROR


@fn("ifThenElse")
def f_ite(ctx, name, args, scope):
    if len(args) != 3:
        return ERROR
    c = ev(ctx, args[0], scope)
    if c is UNDEF:
        return UNDEF
    if not (is_bool(c) or is_int(c) or is_real(c)):
        return ERROR
    return ev(ctx, args[1] if c else args[2], scope)


@fn("eval")
def f_eval(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    ok, s = to_string(ev(ctx, args[0], scope))
    if not ok or not is_str(s):
        return ERROR
    try:
        e = parse(s)
    except ParseError:
        return ERROR
    return ev(ctx, e, scope)


@fn("interval")
def f_interval(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    ok, t = to_int(ev(ctx, args[0], scope))
    if not ok:
        return ERROR
    t = ((t + (1 << 31)) % (1 << 32)) - (1 << 31)
    days = c_div(t, 86400)
    t = t - 86400 * days
    hours = c_div(t, 3600)
    t -= 3600 * hours
    mins = c_div(t, 60)
    secs = t - 60 * mins
    if days:
        return "%d+%02d:%02d:%02d" % (days, abs(hours), abs(mins), abs(secs))
    if hours:
        return "%d:%02d:%02d" % (hours, abs(mins), abs(secs))
    if mins:
        return "%d:%02d" % (mins, abs(secs))
    return "%d" % secs


@fn("unparse")
def f_unparse(ctx, name, args, scope):
    if len(args) != 1 or args[0][0] != "attr":
        return ERROR
    x = scope.lookup(args[0][1]) if scope is not None else None
    if x is None:
        return ""
    text = unparse_expr(x, old=False)
    if "{" in text or "[" in text:
        # HTCondor lays lists and ads out on lines of their own here
        # (its PrettyPrint): the table has them, the model does not.
        raise Unmodelled("unparse of a list or an ad")
    return text


@fn("debug")
def f_debug(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    return ev(ctx, args[0], scope)


@fn("relTime")
def f_reltime(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    if args[0][0] == "lit" and is_str(args[0][1]):
        secs = reltime_from_text(args[0][1])
        return ERROR if secs is None else RelTime(secs)
    v = ev(ctx, args[0], scope)
    if v is UNDEF:
        return UNDEF
    if is_int(v):
        return RelTime(((v + (1 << 31)) % (1 << 32)) - (1 << 31))
    if is_real(v):
        return RelTime(v)
    if isinstance(v, RelTime):
        return v
    if isinstance(v, AbsTime):
        return RelTime(v.secs)
    if is_str(v):
        return RelTime(0)
    return ERROR


@fn("absTime")
def f_abstime(ctx, name, args, scope):
    # Only with an explicit zone offset: otherwise the value depends on
    # the local time zone.
    if len(args) != 2:
        if len(args) == 1 and args[0][0] == "lit" and is_str(args[0][1]):
            t = abstime_from_text(args[0][1])
            return ERROR if t is None else t
        if len(args) in (0, 1):
            raise Unmodelled("absTime in the local time zone")
        return ERROR
    v = ev(ctx, args[0], scope)
    o = ev(ctx, args[1], scope)
    if is_int(o):
        off = ((o + (1 << 31)) % (1 << 32)) - (1 << 31)
    elif is_real(o):
        off = int(o)
    elif isinstance(o, RelTime):
        off = int(o.secs)
    else:
        return ERROR
    if v is UNDEF:
        return UNDEF
    if is_int(v):
        if off == -1:
            return ERROR
        return AbsTime(((v + (1 << 31)) % (1 << 32)) - (1 << 31), off)
    if is_real(v):
        return AbsTime(int(v), off)
    if isinstance(v, AbsTime):
        return v
    if isinstance(v, RelTime):
        return AbsTime(int(v.secs), off)
    return ERROR


@fn("formatTime")
def f_formattime(ctx, name, args, scope):
    import time as _time
    if len(args) == 0:
        return _time.strftime("%c")
    if len(args) > 2:
        return ERROR
    t = ev(ctx, args[0], scope)
    if isinstance(t, RelTime) or is_bool(t):
        return ERROR
    if not isinstance(t, (AbsTime, CAd)) and not is_int(t) and \
            not is_real(t):
        return ERROR
    fmt = "%c"
    if len(args) == 2:
        f = ev(ctx, args[1], scope)
        if not is_str(f):
            return ERROR
        fmt = f
    if any(x in fmt for x in ("%Z", "%z", "%c", "%x", "%X", "%+")):
        raise Unmodelled("formatTime with a zone or locale format")
    if fmt == "":
        raise Unmodelled("formatTime with an empty format")
    if isinstance(t, AbsTime):
        return _time.strftime(fmt, _time.gmtime(t.secs + t.offset))
    if not isinstance(t, CAd):
        return _time.strftime(fmt, _time.localtime(int(t)))
    # splitTime()'s ad: integer fields, HTCondor's defaults where none
    f = {}
    for k in ("Year", "Month", "Day", "Hours", "Minutes", "Seconds"):
        x = t.lookup(k)
        v = eval_attr_in(ctx, t, x) if x is not None else UNDEF
        f[k] = v if is_int(v) and not is_bool(v) else None
    year = f["Year"] if f["Year"] is not None else 1900
    month = f["Month"] if f["Month"] is not None else 1
    day = f["Day"] or 0
    if not 1 <= month <= 12 or not 0 <= day <= 31:
        raise Unmodelled("formatTime of an ad with fields out of range")
    import datetime
    base = datetime.date(year, month, 1).toordinal() + day - 1
    yday = base - datetime.date(year, 1, 1).toordinal()
    wday = (base + 6) % 7      # Python's weekday(): Monday 0
    if "%" + "U" in fmt or "%" + "W" in fmt or "%" + "G" in fmt:
        raise Unmodelled("week numbers of an ad")
    out = fmt
    for code, val in (("%Y", "%d" % year), ("%m", "%02d" % month),
                      ("%d", "%02d" % day),
                      ("%H", "%02d" % (f["Hours"] or 0)),
                      ("%M", "%02d" % (f["Minutes"] or 0)),
                      ("%S", "%02d" % (f["Seconds"] or 0)),
                      ("%j", "%03d" % (yday + 1)),
                      ("%a", ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
                              "Sun"][wday]),
                      ("%b", _time.strftime("%b", (2000, month, 1, 0, 0, 0,
                                                   0, 1, 0)))):
        out = out.replace(code, val)
    if "%" in out.replace("%%", ""):
        raise Unmodelled("formatTime of an ad with another format")
    return out.replace("%%", "%")


def reltime_from_text(s):
    """Literal::MakeRelTime: the text read from its right end, seconds
    (fraction, trailing s), then minutes (':' or m), hours (':' or h),
    days ('+' or d), a sign; None if anything else is left."""
    i = len(s) - 1

    def back_space(i):
        while i >= 0 and s[i].isspace():
            i -= 1
        return i

    def back_digits(i):
        j = i
        while j >= 0 and s[j] in "0123456789":
            j -= 1
        return j, s[j + 1:i + 1]

    secs = 0.0
    i = back_space(i)
    if i >= 0 and (s[i] in "sS" or s[i] in "0123456789"):
        if s[i] in "sS":
            i -= 1
        i = back_space(i)
        end = i
        i, _ = back_digits(i)
        if i >= 0 and s[i] == ".":
            i, _ = back_digits(i - 1)
        if end > i:
            secs = float(s[i + 1:end + 1])
    for marks, unit in (("mM:", 60), ("hH:", 3600), ("dD+", 86400)):
        i = back_space(i)
        if i >= 0 and s[i] in marks:
            i = back_space(i - 1)
            i, digits = back_digits(i)
            secs += int(digits or "0") * unit
    i = back_space(i)
    neg = i >= 0 and s[i] == "-"
    if neg:
        i -= 1
    if back_space(i) >= 0:
        return None
    return -secs if neg else secs


def abstime_from_text(s):
    """Literal::MakeAbsTime: a zone suffix (Z, +hh:mm, +hhmm), then the
    year (4 digits) and 2-digit month, day, hour, minute, second, each
    found by skipping non-digits; None if it cannot be read."""
    import calendar
    import time as _time
    s = s.rstrip()
    off = None
    if len(s) > 1 and s[-1] in "zZ":
        off, s = 0, s[:-1]
    else:
        m = re.search(r"([+-])(\d\d):?(\d\d)$", s)
        if m and (len(s) - m.start()) in (5, 6) and len(s) > 5:
            off = (-1 if m.group(1) == "-" else 1) * (
                int(m.group(2)) * 3600 + int(m.group(3)) * 60)
            s = s[:m.start()]
    fields = [0, 1, 0, 0, 0, 0]
    pos = 0
    for f, width in enumerate((4, 2, 2, 2, 2, 2)):
        m = re.compile(r"\D*").match(s, pos)
        pos = m.end()
        if pos + width > len(s):
            if f == 0:
                return None
            break
        chunk = re.match(r"\d*", s[pos:pos + width]).group(0)
        fields[f] = int(chunk or "0")
        pos += width
    if re.search(r"\d", s[pos:]):
        return None
    y, mo, d, h, mi, sec = fields
    # timegm() carries fields over (day 0 is the month's last but one)
    mo -= 1
    y += mo // 12
    mo %= 12
    secs = calendar.timegm((y, mo + 1, 1, 0, 0, 0)) + \
        (d - 1) * 86400 + h * 3600 + mi * 60 + sec
    if off is None:
        off = _time.localtime(secs).tm_gmtoff
    return AbsTime(secs - off, off)


def local_tm(secs):
    import time as _time
    return _time.localtime(secs)


@fn("getYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDayOfWeek",
    "getHours", "getMinutes", "getSeconds", "getDays")
def f_getfield(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if isinstance(v, AbsTime) and name != "getdays":
        tm = local_tm(v.secs)
        return {"getyear": tm.tm_year, "getmonth": tm.tm_mon,
                "getdayofyear": tm.tm_yday - 1, "getdayofmonth": tm.tm_mday,
                "getdayofweek": (tm.tm_wday + 1) % 7,
                "gethours": tm.tm_hour, "getminutes": tm.tm_min,
                "getseconds": tm.tm_sec}[name]
    if isinstance(v, RelTime) and name in ("gethours", "getminutes",
                                           "getseconds", "getdays"):
        r = int(v.secs)
        sign = -1 if r < 0 else 1
        r = abs(r)
        return sign * {"getdays": r // 86400, "gethours": r % 86400 // 3600,
                       "getminutes": r % 3600 // 60,
                       "getseconds": r % 60}[name]
    return ERROR


def literal_ad(pairs):
    ad = CAd()
    for n, v in pairs:
        ad.set(n, ("lit", v))
    return ad


@fn("splitTime")
def f_splittime(ctx, name, args, scope):
    import time as _time
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if v is UNDEF:
        return UNDEF
    if (is_int(v) or is_real(v)) and not is_bool(v):
        secs = int(v)
        v = AbsTime(secs, local_tm(secs).tm_gmtoff)
    if isinstance(v, AbsTime):
        tm = _time.gmtime(v.secs + v.offset)
        return literal_ad([("Type", "AbsoluteTime"), ("Year", tm.tm_year),
                           ("Month", tm.tm_mon), ("Day", tm.tm_mday),
                           ("Hours", tm.tm_hour), ("Minutes", tm.tm_min),
                           ("Seconds", tm.tm_sec), ("Offset", v.offset)])
    if isinstance(v, RelTime):
        r = abs(v.secs)
        whole = int(r)
        parts = [whole // 86400, whole % 86400 // 3600, whole % 3600 // 60,
                 float(whole % 60) + (r - whole)]
        if v.secs < 0:
            for k in range(4):
                if parts[k] > 0 or k == 3:
                    parts[k] = -parts[k]
                    break
        return literal_ad([("Type", "RelativeTime"), ("Days", parts[0]),
                           ("Hours", parts[1]), ("Minutes", parts[2]),
                           ("Seconds", parts[3])])
    return ERROR


@fn("currentTime", "timeZoneOffset", "dayTime")
def f_clock(ctx, name, args, scope):
    import time as _time
    if args:
        return ERROR
    now = int(_time.time())
    tm = local_tm(now)
    if name == "currenttime":
        return AbsTime(now, tm.tm_gmtoff)
    if name == "timezoneoffset":
        return RelTime(tm.tm_gmtoff)
    return RelTime(tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec)


def deref(ctx, e, scope):
    """The expression an attribute reference names (HTCondor's Deref,
    the alternate scope included), or None."""
    if e[0] == "attr" and not e[2]:
        ad, x = find_attr(ctx, scope, e[1])
        if x is not None and x[0] != "adref":
            return ad, x
        return None
    if (e[0] == "sel" and e[1][0] == "attr" and
            e[1][1].lower() in ("my", "target")):
        base = ev(ctx, e[1], scope)
        if isinstance(base, CAd) and base.lookup(e[2]) is not None:
            return base, base.lookup(e[2])
    return None


@fn("evalInEachContext", "countMatches")
def f_evalineach(ctx, name, args, scope):
    if len(args) != 2:
        return ERROR
    e = args[0]
    found = deref(ctx, e, scope)
    if found is not None:
        e = found[1]
    lst = ev(ctx, args[1], scope)
    if lst is UNDEF:
        return UNDEF if name == "evalineachcontext" else 0
    if not isinstance(lst, CList):
        return ERROR
    results = []
    for x in lst.exprs:
        item = ev(ctx, x, lst.scope)
        if isinstance(item, CAd):
            results.append(ev(ctx, e, item))
        else:
            results.append(UNDEF if item is UNDEF else ERROR)
    if name == "countmatches":
        return sum(1 for r in results if bool_equiv(r) == (True, True))
    return CList([value_expr(r) for r in results], None)


def external_refs(ctx, e, cur, refs, depth):
    """ClassAd::_GetExternalReferences with full names: False if it
    gives up."""
    if depth > 100:
        return False
    k = e[0]
    if k == "lit":
        return True
    if k == "attr":
        if e[2]:
            raise Unmodelled("unresolved() of an absolute reference")
        x = cur.lookup(e[1])
        if x is not None:
            return external_refs(ctx, x, cur, refs, depth + 1)
        if e[1].lower() in ("my", "target", "parent", "root", "toplevel",
                            "self"):
            raise Unmodelled("unresolved() of a bare scope name")
        refs.setdefault(e[1].lower(), e[1])
        return True
    if k == "sel":
        base = e[1]
        if base[0] == "attr" and base[1].lower() in ("my", "target"):
            other = ctx.target if cur is ctx.my else ctx.my
            ad = cur if base[1].lower() == "my" else other
            if ad is None:
                refs.setdefault(e[2].lower(), e[2])
                return True
            x = ad.lookup(e[2])
            if x is None:
                refs.setdefault(e[2].lower(), e[2])
                return True
            return external_refs(ctx, x, ad, refs, depth + 1)
        v = ev(ctx, base, ctx.my)
        if v is UNDEF:
            full = unparse_expr(base, old=False) + "." + e[2]
            if full.lower().startswith("target."):
                full = full[7:]
            refs.setdefault(full.lower(), full)
            return True
        if isinstance(v, CAd):
            if v.lookup(e[2]) is not None:
                raise Unmodelled("unresolved() through a nested ad")
            refs.setdefault(e[2].lower(), e[2])
            return True
        return False
    kids = {"paren": [1], "un": [2], "bin": [2, 3], "cond": [1, 2, 3],
            "elvis": [1, 2], "sub": [1, 2]}.get(k)
    if kids is not None:
        subs = [e[i] for i in kids]
    elif k == "call":
        subs = e[2]
    elif k == "list":
        subs = e[1]
    elif k == "ad":
        subs = [x for _, x in e[1]]
    else:
        raise TypeError(e)
    return all(external_refs(ctx, x, cur, refs, depth + 1) for x in subs)


@fn("unresolved")
def f_unresolved(ctx, name, args, scope):
    if not 1 <= len(args) <= 2:
        return ERROR
    a = args[0]
    if not (a[0] == "attr" or (a[0] == "sel" and a[1][0] == "attr" and
                               a[1][1].lower() in ("my", "target"))):
        return ERROR
    found = deref(ctx, a, scope)
    if found is None:
        return UNDEF
    pattern = None
    if len(args) == 2:
        p = ev(ctx, args[1], scope)
        if not is_str(p):
            return ERROR
        try:
            pattern = re.compile(p, re.IGNORECASE)
        except re.error:
            return ERROR
    refs = {}
    ok = external_refs(ctx, found[1], found[0], refs, 0)
    names = sorted(refs.values(), key=str.lower) if ok else []
    if pattern is None:
        return ",".join(names)
    return any(m.end() > m.start() for n in names
               for m in pattern.finditer(n))


# -- environments and arguments (HTCondor's Env and ArgList)

def v2_split(text):
    """split_args: the words of the second syntax, or None."""
    words, cur, token, i = [], [], False, 0
    while i < len(text):
        c = text[i]
        if c == "'":
            token = True
            j = i + 1
            while True:
                if j >= len(text):
                    return None
                if text[j] == "'":
                    if text[j + 1:j + 2] == "'":
                        cur.append("'")
                        j += 2
                        continue
                    break
                cur.append(text[j])
                j += 1
            i = j + 1
        elif c in " \t\n\r":
            if token:
                words.append("".join(cur))
            cur, token = [], False
            i += 1
        else:
            token = True
            cur.append(c)
            i += 1
    if token:
        words.append("".join(cur))
    return words


def v2_join(words):
    """join_args: quote each white space or quote character, quoted
    stretches run together."""
    out = ""
    for w in words:
        if out:
            out += " "
        if w == "":
            out += "''"
        for c in w:
            if c in " \t\n\r'":
                if out.endswith("'"):
                    out = out[:-1]
                else:
                    out += "'"
                out += ("''" if c == "'" else c) + "'"
            else:
                out += c
    return out


def env_put(env, entry):
    """SetEnvWithErrorMessage into dict env; False if it is no entry."""
    if "=" not in entry:
        if "$$" in entry:
            env[entry] = None
            return True
        return False
    name, value = entry.split("=", 1)
    if not name:
        return False
    env[name] = value
    return True


def env_text(env):
    return v2_join(k if env[k] is None else k + "=" + env[k]
                   for k in sorted(env, key=lambda k: k.encode("latin-1")))


@fn("envV1ToV2")
def f_envv1tov2(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if v is UNDEF:
        return UNDEF
    if not is_str(v):
        return ERROR
    delim = ";"
    if v and v[0] in "!#$%&*+,-/:;<>?@^`|~\x1f":
        delim, v = v[0], v[1:]
    env = {}
    for entry in re.split("[" + re.escape(delim) + "\n]", v):
        entry = entry.lstrip(" \t\n\r")
        if entry and not env_put(env, entry):
            return ERROR
    return env_text(env)


@fn("mergeEnvironment")
def f_mergeenv(ctx, name, args, scope):
    env = {}
    for a in args:
        v = ev(ctx, a, scope)
        if v is UNDEF:
            continue
        words = v2_split(v) if is_str(v) else None
        if words is None:
            return ERROR
        for w in words:
            if not env_put(env, w):
                return ERROR
    return env_text(env)


def args_version(ctx, args, scope):
    if len(args) < 2:
        return 2
    v = ev(ctx, args[1], scope)
    return v if is_int(v) and not is_bool(v) and v in (1, 2) else None


@fn("argsToList")
def f_argstolist(ctx, name, args, scope):
    if len(args) not in (1, 2):
        return ERROR
    vers = args_version(ctx, args, scope)
    if vers is None:
        return ERROR
    v = ev(ctx, args[0], scope)
    if not is_str(v):
        return ERROR
    words = v2_split(v) if vers == 2 else v.split()
    if words is None:
        return ERROR
    return CList([("lit", w) for w in words], None)


@fn("listToArgs")
def f_listtoargs(ctx, name, args, scope):
    if len(args) not in (1, 2):
        return ERROR
    vers = args_version(ctx, args, scope)
    if vers is None:
        return ERROR
    lst = ev(ctx, args[0], scope)
    if not isinstance(lst, CList):
        return ERROR
    words = [ev(ctx, x, lst.scope) for x in lst.exprs]
    if not all(is_str(w) for w in words):
        return ERROR
    if vers == 1:
        if any(re.search("[ \t\r\n]", w) for w in words):
            return ERROR
        return " ".join(words)
    return v2_join(words)


@fn("userHome")
def f_userhome(ctx, name, args, scope):
    # The table's context does not enable the lookup
    # (CLASSAD_ENABLE_USER_HOME), so only the default matters.
    if len(args) not in (1, 2):
        return ERROR
    dflt = ev(ctx, args[1], scope) if len(args) == 2 else ""
    if not is_str(dflt):
        dflt = ""
    user = ev(ctx, args[0], scope)
    if dflt:
        return dflt
    return UNDEF if (is_str(user) or user is UNDEF) else ERROR


@fn("userMap")
def f_usermap(ctx, name, args, scope):
    # The table's context configures no map: nothing maps.
    if not 2 <= len(args) <= 4:
        return ERROR
    vals = [ev(ctx, a, scope) for a in args]
    if vals[0] is ERROR or vals[1] is ERROR:
        if not (is_str(vals[0]) and is_str(vals[1])):
            return ERROR
    return vals[3] if len(vals) == 4 else UNDEF


# -- regular expressions (PCRE; Python's re agrees on what we use)

def compile_re(pattern, opts):
    flags = 0
    if "i" in opts:
        flags |= re.IGNORECASE
    if "m" in opts:
        flags |= re.MULTILINE
    if "s" in opts:
        flags |= re.DOTALL
    if "x" in opts:
        flags |= re.VERBOSE
    try:
        return re.compile(pattern, flags)
    except re.error:
        return None


def regexp_helper(pattern, target, replace, opts):
    r = compile_re(pattern, opts)
    if r is None:
        return ERROR
    if replace is None:
        return r.search(target) is not None
    # HTCondor's loop (fnCall.cpp regexp_helper): after an empty match
    # the next try is anchored and must not be empty; when that fails
    # one character is copied (a NUL past the end) and the search goes
    # on, and a start past the end of the target is an error.
    full = "f" in opts
    find_all = "g" in opts
    out = []
    idx = 0
    empty = False
    while True:
        if idx > len(target):
            return ERROR
        if empty:
            m = r.match(target, idx)
            if m is not None and m.end() == idx:
                m = None
            if m is None:
                out.append(target[idx] if idx < len(target) else "\0")
                idx += 1
                empty = False
                continue
        else:
            m = r.search(target, idx)
            if m is None:
                break
        if full:
            out.append(target[idx:m.start()])
        groups = [m.group(0)] + [g if g is not None else ""
                                 for g in m.groups()]
        # pcre2_match's count: the last group set, plus one
        ngroups = 1
        for gi in range(len(m.groups()), 0, -1):
            if m.group(gi) is not None:
                ngroups = gi + 1
                break
        j = 0
        while j < len(replace):
            ch = replace[j]
            if ch == "\\":
                if j + 1 < len(replace) and replace[j + 1].isdigit():
                    g = int(replace[j + 1])
                    j += 1
                    if g >= ngroups:
                        return ERROR
                    out.append(groups[g])
                else:
                    out.append("\\")
            else:
                out.append(ch)
            j += 1
        idx = m.end()
        empty = m.start() == m.end()
        if not find_all:
            break
    if full:
        out.append(target[idx:])
    return "".join(out)


def pattern_args(vals, nfixed):
    """Common checks of regexp & co: error first, then undefined."""
    if any(v is ERROR for v in vals):
        return ERROR
    if any(v is UNDEF for v in vals):
        return UNDEF
    if len(vals) > nfixed and not is_str(vals[nfixed]):
        return ERROR
    return None


@fn("regexp")
def f_regexp(ctx, name, args, scope):
    if len(args) not in (2, 3):
        return ERROR
    vs = args_eval(ctx, args, scope)
    bad = pattern_args(vs, 2)
    if bad is not None:
        return bad
    if not (is_str(vs[0]) and is_str(vs[1])):
        return ERROR
    return regexp_helper(vs[0], vs[1], None, vs[2] if len(vs) > 2 else "")


@fn("regexpMember")
def f_regexpmember(ctx, name, args, scope):
    if len(args) not in (2, 3):
        return ERROR
    vs = args_eval(ctx, args, scope)
    bad = pattern_args(vs, 2)
    if bad is not None:
        return bad
    if not (is_str(vs[0]) and isinstance(vs[1], CList)):
        return ERROR
    opts = vs[2] if len(vs) > 2 else ""
    maybe_undef = False
    for x in vs[1].exprs:
        v = ev(ctx, x, vs[1].scope)
        if not is_str(v):
            if v is UNDEF:
                maybe_undef = True
                continue
            return ERROR
        r = regexp_helper(vs[0], v, None, opts)
        # A pattern that does not compile matches nothing (HTCondor).
        if r is True:
            return True
    return UNDEF if maybe_undef else False


@fn("regexps", "replace", "replaceall")
def f_regexps(ctx, name, args, scope):
    if len(args) not in (3, 4):
        return ERROR
    vs = args_eval(ctx, args, scope)
    bad = pattern_args(vs, 3)
    if bad is not None:
        return bad
    opts = vs[3] if len(vs) > 3 else ""
    if name == "replace":
        opts += "f"
    elif name == "replaceall":
        opts += "fg"
    if not all(is_str(v) for v in vs[:3]):
        return ERROR
    return regexp_helper(vs[0], vs[1], vs[2], opts)


# -- string lists (HTCondor's compatibility layer)

def tokens(s, delims):
    """StringTokenIterator: tokens between any of delims, empty ones
    skipped, surrounding white space trimmed."""
    out = []
    cur = []
    for ch in s + delims[:1]:
        if ch in delims:
            t = "".join(cur).strip(" \t\r\n")
            if t:
                out.append(t)
            cur = []
        else:
            cur.append(ch)
    if cur:
        t = "".join(cur).strip(" \t\r\n")
        if t:
            out.append(t)
    return out


@fn("stringListSize")
def f_sl_size(ctx, name, args, scope):
    if not 1 <= len(args) <= 2:
        return ERROR
    vs = args_eval(ctx, args, scope)
    if not all(is_str(v) for v in vs):
        return ERROR
    return len(tokens(vs[0], vs[1] if len(vs) > 1 else ", "))


def scanf_double(s):
    m = STRTOD.match(s)
    if not m:
        return None
    return strtod(s)[0]


@fn("stringListSum", "stringListAvg", "stringListMin", "stringListMax")
def f_sl_sum(ctx, name, args, scope):
    if not 1 <= len(args) <= 2:
        return ERROR
    vs = args_eval(ctx, args, scope)
    if not all(is_str(v) for v in vs):
        return ERROR
    FLT_MAX = 3.4028234663852886e+38
    FLT_MIN = 1.1754943508222875e-38
    if name in ("stringlistsum", "stringlistavg"):
        acc = 0.0
        f = lambda x, a: x + a
    elif name == "stringlistmin":
        acc = FLT_MAX
        f = lambda x, a: x if x < a else a
    else:
        acc = FLT_MIN
        f = lambda x, a: x if x > a else a
    is_r = False
    cnt = 0
    for t in tokens(vs[0], vs[1] if len(vs) > 1 else ", "):
        cnt += 1
        x = scanf_double(t)
        if x is None:
            return ERROR
        if any(c not in "+-0123456789" for c in t):
            is_r = True
        acc = f(x, acc)
    if cnt == 0:
        return 0.0 if name in ("stringlistsum", "stringlistavg") else UNDEF
    if name == "stringlistavg":
        acc /= cnt
    return acc if is_r else c_double_to_ll(acc)


@fn("stringListMember", "stringListIMember", "stringListSubsetMatch",
    "stringListISubsetMatch")
def f_sl_member(ctx, name, args, scope):
    if not 2 <= len(args) <= 3:
        return ERROR
    vs = args_eval(ctx, args, scope)
    if not all(is_str(v) or v is UNDEF for v in vs):
        return ERROR
    if vs[0] is UNDEF and vs[1] is UNDEF:
        return UNDEF
    item = vs[0] if is_str(vs[0]) else ""
    lst = vs[1] if is_str(vs[1]) else ""
    delims = vs[2] if len(vs) > 2 and is_str(vs[2]) else ", \t\r\n"
    ci = name in ("stringlistimember", "stringlistisubsetmatch")
    norm = (lambda s: s.lower()) if ci else (lambda s: s)
    items = [norm(t) for t in tokens(lst, delims)]
    if name.endswith("member"):
        return norm(item) in items
    if item == "":
        return True
    for t in tokens(item, delims):
        if norm(t) not in items:
            return False
    return True


@fn("stringList_regexpMember")
def f_sl_regexp(ctx, name, args, scope):
    if not 2 <= len(args) <= 4:
        return ERROR
    vs = args_eval(ctx, args, scope)
    if not all(is_str(v) for v in vs):
        return ERROR
    delims = vs[2] if len(vs) > 2 else ", "
    opts = (vs[3] if len(vs) > 3 else "").lower()
    r = compile_re(vs[0], opts)
    if r is None:
        return ERROR
    toks = tokens(vs[1], delims)
    if not toks:
        return UNDEF
    return any(r.search(t) is not None for t in toks)


@fn("stringListsIntersect")
def f_sl_intersect(ctx, name, args, scope):
    if len(args) not in (2, 3):
        return ERROR
    vs = args_eval(ctx, args, scope)
    if any(v is ERROR for v in vs):
        return ERROR
    if any(v is UNDEF for v in vs):
        return UNDEF
    if len(vs) > 2 and not is_str(vs[2]):
        return ERROR
    if not (is_str(vs[0]) and is_str(vs[1])):
        return ERROR
    d = vs[2] if len(vs) > 2 and vs[2] else " ,"
    sp = lambda s: [t for t in re.split("[" + re.escape(d) + "]", s) if t]
    s1 = set(sp(vs[1]))
    return any(t in s1 for t in sp(vs[0]))


def strlist(items):
    return CList([("lit", s) for s in items], None, made=True)


@fn("splitUserName", "splitSlotName")
def f_split_at(ctx, name, args, scope):
    if len(args) != 1:
        return ERROR
    v = ev(ctx, args[0], scope)
    if not is_str(v):
        return ERROR
    if "@" in v:
        i = v.index("@")
        return strlist([v[:i], v[i + 1:]])
    if name == "splitslotname":
        return strlist(["", v])
    return strlist([v, ""])


@fn("split")
def f_split(ctx, name, args, scope):
    if len(args) not in (1, 2):
        return ERROR
    vs = args_eval(ctx, args, scope)
    if not is_str(vs[0]):
        return ERROR
    seps = ", \t"
    if len(vs) > 1:
        if not is_str(vs[1]):
            return ERROR
        seps = vs[1]
    s = vs[0]
    out = []
    last = 0
    ch = None
    if seps:
        i = last
        while True:
            while i < len(s) and s[i] not in seps:
                i += 1
            if i >= len(s):
                break
            if i - last > 0:
                out.append(s[last:i])
            elif not (ch is not None and ch.isspace()) and ch == s[i]:
                out.append("")
            if not s[i].isspace():
                ch = s[i]
            last = i + 1
            i = last
    if len(s) > last:
        out.append(s[last:])
    return strlist(out)


# ---------------------------------------------------------------- context

def parse_ad_file(path):
    """Ads in "Name = value" lines, a blank line ending each."""
    ads = []
    cur = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if cur is not None:
                    ads.append(cur)
                    cur = None
                continue
            if line.lstrip().startswith("#"):
                continue
            name, _, val = line.partition("=")
            if cur is None:
                cur = CAd()
            cur.set(name.strip(), parse(val.strip()))
    if cur is not None:
        ads.append(cur)
    return ads


HERE = os.path.dirname(os.path.abspath(__file__))


def load_context(path=None):
    ads = parse_ad_file(path or os.path.join(HERE, "context.ad"))
    my, target = ads[0], ads[1]
    my.alt, target.alt = target, my
    my.other, target.other = target, my
    return my, target


def evaluate(text, my, target):
    try:
        e = parse(text)
    except (ParseError, ValueError):
        return "error"
    ctx = Ctx(my, target)
    try:
        v = ev(ctx, e, my)
    except (EvalFail, RecursionError):
        return "error"
    except Unmodelled:
        return None
    return unparse_value(v, old=True)


# ---------------------------------------------------------------- generator

class Gen:
    """Typed random expressions over every operator and type.

    expr(t, depth) makes an expression meant to have type t (int, real,
    str, bool, list, ad); now and then an operand of another type, or
    undefined or error, is put in its place, so that the promotion,
    error and three-valued rules are exercised too."""

    TYPES = ["int", "real", "str", "bool", "list", "ad"]

    def __init__(self, seed):
        self.r = pyrandom.Random(seed)

    def pick(self, xs):
        return self.r.choice(xs)

    def lit(self, t):
        r = self.r
        if t == "int":
            return self.pick(["0", "1", "2", "3", "-1", "7", "10", "-13",
                              "100", "255", "1024", "65536",
                              "9223372036854775807", str(r.randint(-50, 50)),
                              "RequestMemory", "Memory", "Cpus", "ImageSize",
                              "TARGET.Memory", "MY.RequestCpus", "KeyboardIdle",
                              "JobMemTwice", "Nested.y", "ClusterId"])
        if t == "real":
            return self.pick(["0.0", "0.5", "1.0", "2.5", "-2.5", "3.75",
                              "1e10", "1.5e-3", "-0.25", "100.0", "1e300",
                              "%.3f" % r.uniform(-100, 100), "Ratio",
                              "LoadAvg", "MY.Ratio", "TARGET.LoadAvg"])
        if t == "str":
            return self.pick(['"abc"', '"ABC"', '""', '"x"', '"12"', '"2.5"',
                              '"alice"', '"a,b,c"', '"True"', '"Hello World"',
                              "Owner", "Cmd", "OpSys", "Machine",
                              "TARGET.Arch", "Nested.z", "Sites", "Shared",
                              "TARGET.Shared"])
        if t == "bool":
            return self.pick(["true", "false", "TRUE", "False", "NiceUser",
                              "WantCheckpoint", "TARGET.HasDocker",
                              "Requirements", "TARGET.Start"])
        if t == "undef":
            return self.pick(["undefined", "MemoryUsage", "NoSuchAttr", "a",
                              "TARGET.Owner", "Nested.w"])
        if t == "err":
            return self.pick(["error", "(1/0)", '("a" + 1)', "{1}[5]"])
        if t == "list":
            return self.pick(["{}", "{1,2,3}", "{1.5,2}", '{"a","b"}',
                              "MyList", "{undefined,1}", "Names",
                              '{1, "a", 2.5}'])
        if t == "ad":
            return self.pick(["[a = 1]", "[]", "Nested", "[x = 2; y = x + 1]"])
        raise ValueError(t)

    def wrong(self, t):
        """An operand of some other kind than t."""
        return self.lit(self.pick([x for x in self.TYPES + ["undef", "err"]
                                   if x != t]))

    def e(self, t, depth):
        r = self.r
        if r.random() < 0.08:
            return self.wrong(t)
        if depth <= 0 or r.random() < 0.25:
            return self.lit(t)
        d = depth - 1
        g = getattr(self, "g_" + t)
        return g(d)

    def num(self, d):
        return self.e(self.pick(["int", "int", "real", "bool"]), d)

    def any(self, d):
        return self.e(self.pick(self.TYPES), d)

    def g_int(self, d):
        r = self.r
        k = r.randrange(12)
        if k < 3:
            return "(%s %s %s)" % (self.e("int", d), self.pick(["+", "-", "*"]),
                                   self.e("int", d))
        if k == 3:
            return "(%s %s %s)" % (self.e("int", d), self.pick(["/", "%"]),
                                   self.pick(["1", "2", "3", "-7", "0",
                                              self.e("int", d)]))
        if k == 4:
            return "(%s %s %s)" % (self.e("int", d), self.pick(["&", "|", "^"]),
                                   self.e("int", d))
        if k == 5:
            return "(%s %s %d)" % (self.e("int", d),
                                   self.pick(["<<", ">>", ">>>"]),
                                   r.randint(1, 62))
        if k == 6:
            return self.pick(["-", "~", "+"]) + "(" + self.e("int", d) + ")"
        if k == 7:
            return "(%s ? %s : %s)" % (self.e("bool", d), self.e("int", d),
                                       self.e("int", d))
        if k == 8:
            return self.pick(["size(%s)" % self.e("str", d),
                              "size(%s)" % self.e("list", d),
                              "int(%s)" % self.any(d),
                              "floor(%s)" % self.num(d),
                              "ceiling(%s)" % self.num(d),
                              "round(%s)" % self.num(d),
                              "strcmp(%s, %s)" % (self.e("str", d), self.e("str", d)),
                              "stricmp(%s, %s)" % (self.e("str", d), self.e("str", d)),
                              "stringListSize(%s)" % self.e("str", d),
                              "versioncmp(%s, %s)" % (self.e("str", d), self.e("str", d))])
        if k == 9:
            return self.pick(["sum(%s)", "min(%s)", "max(%s)"]) % (
                "{%s}" % ", ".join(self.num(d) for _ in range(r.randint(0, 3))))
        if k == 10:
            return "{%s}[%d]" % (", ".join(self.e("int", d)
                                           for _ in range(r.randint(1, 3))),
                                 r.randint(0, 2))
        return self.pick(["[a = %s; b = a * 2].b", "ifThenElse(%s, 1, 2)",
                          "quantize(%s, 4)", "pow(%s, 2)",
                          "(%s ?: 5)"]) % self.pick([self.e("int", d),
                                                     self.e("bool", d)])

    def g_real(self, d):
        r = self.r
        k = r.randrange(7)
        if k < 3:
            return "(%s %s %s)" % (self.num(d), self.pick(["+", "-", "*", "/"]),
                                   self.e("real", d))
        if k == 3:
            return "-(" + self.e("real", d) + ")"
        if k == 4:
            return self.pick(["real(%s)" % self.any(d),
                              "avg({%s, %s})" % (self.num(d), self.num(d)),
                              "pow(%s, %s)" % (self.num(d), self.pick(["0.5", "2", "-1"])),
                              "quantize(%s, 2.5)" % self.num(d)])
        if k == 5:
            return "(%s ? %s : %s)" % (self.e("bool", d), self.e("real", d),
                                       self.num(d))
        return "%s(%s)" % (self.pick(["max", "min", "sum"]),
                           "{%s, %s}" % (self.e("real", d), self.num(d)))

    def g_str(self, d):
        r = self.r
        k = r.randrange(8)
        if k == 0:
            return "strcat(%s)" % ", ".join(self.any(d)
                                            for _ in range(r.randint(0, 3)))
        if k == 1:
            return "%s(%s)" % (self.pick(["toUpper", "toLower", "string"]),
                               self.any(d))
        if k == 2:
            return "substr(%s, %s%s)" % (self.e("str", d),
                                         self.pick(["0", "1", "-2", "5"]),
                                         self.pick(["", ", 2", ", -1", ", 0"]))
        if k == 3:
            return "join(%s, %s)" % (self.pick(['","', '" "', '""']),
                                     self.pick([self.e("list", d),
                                                self.e("str", d) + ", " +
                                                self.any(d)]))
        if k == 4:
            return "(%s ? %s : %s)" % (self.e("bool", d), self.e("str", d),
                                       self.e("str", d))
        if k == 5:
            return "%s(%s, %s, %s)" % (self.pick(["replace", "replaceAll",
                                                  "regexps"]),
                                       self.pick(['"a"', '"[0-9]+"', '"^."',
                                                  '"(l+)(i)"', '"c"']),
                                       self.e("str", d),
                                       self.pick(['"X"', r'"<\\1>"', '""']))
        if k == 6:
            return "interval(%s)" % self.e("int", d)
        return "{%s}[0]" % self.e("str", d)

    def g_bool(self, d):
        r = self.r
        k = r.randrange(9)
        if k < 2:
            t = self.pick(["int", "real", "str", "int", "bool"])
            return "(%s %s %s)" % (self.e(t, d),
                                   self.pick(["<", "<=", ">", ">=", "==", "!="]),
                                   self.e(self.pick([t, t, "int", "real"]), d))
        if k == 2:
            t = self.pick(self.TYPES + ["undef"])
            return "(%s %s %s)" % (self.e(t, d) if t != "undef" else self.lit(t),
                                   self.pick(["=?=", "=!=", "is", "isnt"]),
                                   self.any(d))
        if k < 5:
            return "(%s %s %s)" % (self.e("bool", d), self.pick(["&&", "||"]),
                                   self.pick([self.e("bool", d), self.lit("undef"),
                                              self.e("bool", d)]))
        if k == 5:
            return "!(%s)" % self.e("bool", d)
        if k == 6:
            return "%s(%s)" % (self.pick(["isUndefined", "isError", "isString",
                                          "isInteger", "isReal", "isBoolean",
                                          "isList", "isClassAd", "bool"]),
                               self.any(d))
        if k == 7:
            return self.pick([
                "member(%s, %s)" % (self.any(d), self.e("list", d)),
                "identicalMember(%s, %s)" % (self.any(d), self.e("list", d)),
                "regexp(%s, %s)" % (self.pick(['"^a"', '"[0-9]"', '"ic"']),
                                    self.e("str", d)),
                "stringListMember(%s, %s)" % (self.e("str", d), self.e("str", d)),
                "stringListIMember(%s, %s)" % (self.e("str", d), self.e("str", d)),
                "anyCompare(%s, %s, %s)" % (self.pick(['"<"', '"=="', '"is"']),
                                            self.e("list", d), self.num(d)),
                "allCompare(%s, %s, %s)" % (self.pick(['">"', '"!="']),
                                            self.e("list", d), self.num(d)),
                "versionGT(%s, %s)" % (self.e("str", d), self.pick(['"8.9"', '"1.10"']))])
        return "(%s ? %s : %s)" % (self.any(d), self.e("bool", d),
                                   self.e("bool", d))

    def g_list(self, d):
        r = self.r
        k = r.randrange(3)
        if k == 0:
            return "{%s}" % ", ".join(self.any(d) for _ in range(r.randint(0, 3)))
        if k == 1:
            return "split(%s)" % self.e("str", d)
        return self.pick(["splitUserName(%s)", "splitSlotName(%s)"]) % \
            self.e("str", d)

    def g_ad(self, d):
        return "[a = %s; b = %s]" % (self.any(d), self.any(d))

    def expr(self, depth):
        t = self.pick(self.TYPES + ["int", "real", "bool", "str"])
        if t in ("list", "ad") and self.r.random() < 0.5:
            t = "int"
        return self.e(t, depth)


def generate(n, seed, my, target):
    g = Gen(seed)
    out = []
    seen = set()
    tries = 0
    while len(out) < n and tries < n * 20:
        tries += 1
        e = g.expr(g.r.randint(1, 4))
        if e in seen or "\t" in e:
            continue
        seen.add(e)
        v = evaluate(e, my, target)
        if v is not None:
            out.append((e, v))
    return out


# ---------------------------------------------------------------- main

def read_table(path):
    """(group, expression, expected, line number) of each table line."""
    group = "misc"
    rows = []
    with open(path, encoding="latin-1") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                m = re.match(r"^## *group: *(\S+)", line)
                if m:
                    group = m.group(1)
                continue
            if "\t" not in line:
                rows.append((group, line, None, no))
                continue
            expr, want = line.split("\t", 1)
            rows.append((group, expr, want, no))
    return rows


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    my, target = load_context()
    if cmd == "check":
        path = argv[2] if len(argv) > 2 else os.path.join(HERE, "semantics.tab")
        bad = 0
        n = 0
        unmodelled = 0
        for group, expr, want, no in read_table(path):
            n += 1
            if want is None:
                print("%s:%d: no expected value" % (path, no))
                bad += 1
                continue
            got = evaluate(expr, my, target)
            if got is None:
                unmodelled += 1
                continue
            if got != want:
                bad += 1
                print("%s:%d: [%s] %s\twant %s\tmodel %s" %
                      (path, no, group, expr, want, got))
        print("%d lines, %d outside the model, %d disagree" %
              (n, unmodelled, bad))
        return 1 if bad else 0
    if cmd == "eval":
        exprs = argv[2:] or [l.rstrip("\n") for l in sys.stdin]
        for e in exprs:
            print(evaluate(e, my, target))
        return 0
    if cmd == "gen":
        n = int(argv[2]) if len(argv) > 2 else 500
        seed = int(argv[3]) if len(argv) > 3 else 1988
        for e, v in generate(n, seed, my, target):
            print("%s\t%s" % (e, v))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    sys.exit(main(sys.argv))
