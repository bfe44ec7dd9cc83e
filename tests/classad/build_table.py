#!/usr/bin/env python3
"""tests/classad/build_table.py: write semantics.tab (to stdout).

Each group lists expressions; a line given with its value ("H" lines)
holds a value read off HTCondor's ClassAd source (operators.cpp,
fnCall.cpp, value.cpp, lexer.cpp, sink.cpp, compat_classad.cpp) and the
build stops if the model in reference.py disagrees with it; the other
lines (the operators on every pair of types, the functions on every
type of argument) take the model's value.  Regenerate with
    tests/classad/build_table.py >tests/classad/semantics.tab
after a correction of the model, and review the difference.
"""
import sys

import reference as R

MY, TARGET = R.load_context()
OUT = []
BAD = []
SEEN = set()


def group(name, *comment):
    OUT.append("")
    OUT.append("## group: %s" % name)
    for c in comment:
        OUT.append("# " + c)


def line(expr, want=None):
    if expr in SEEN and want is None:
        return
    got = R.evaluate(expr, MY, TARGET)
    if expr in SEEN:
        # already in the table: the value read off the source is still
        # held against the model
        if got is not None and got != want:
            BAD.append("%s: want %s, model %s" % (expr, want, got))
        return
    SEEN.add(expr)
    if got is None and want is None:
        return      # outside the model: only hand-checked lines for it
    if got is None:
        got = want
    if want is not None and got != want:
        BAD.append("%s: want %s, model %s" % (expr, want, got))
    assert "\t" not in expr and "\n" not in got and "\t" not in got, expr
    OUT.append("%s\t%s" % (expr, want if want is not None else got))


def H(pairs):
    for e, w in pairs:
        line(e, w)


# Operands of every type (and attributes of the context of each type).
INT = ["0", "1", "7", "-3", "9223372036854775807"]
REAL = ["0.0", "2.5", "-0.5", "1e300"]
STR = ['"abc"', '"ABC"', '""', '"10"']
BOOL = ["true", "false"]
UND = ["undefined"]
ERR = ["error"]
LIST = ["{1,2}", "{}"]
AD = ["[a = 1]"]
ATTR = ["RequestMemory", "Ratio", "Owner", "NiceUser", "MemoryUsage",
        "MyList", "Nested", "TARGET.Memory"]
ALL = INT + REAL + STR + BOOL + UND + ERR + LIST + AD
SMALL = ["0", "7", "-3", "2.5", "0.0", '"abc"', '"ABC"', "true", "false",
         "undefined", "error", "{1,2}", "[a = 1]"]

HEADER = """\
# tests/classad/semantics.tab: HTCondor's ClassAd language, expression by
# expression, with the value HTCondor's ClassAd library (default,
# non-strict evaluation) gives it.
#
# Each line: EXPRESSION<TAB>VALUE.  Lines starting with '#' are comments;
# "## group: NAME" starts a group (one check of the test per group).
#
# Context: each expression is evaluated as an attribute of the MY ad (a
# job) with TARGET the machine ad, both in context.ad (first ad MY,
# second TARGET, "Name = value" lines as condor_q -l prints them, a
# blank line ending an ad).  An unscoped name is looked up in MY (and
# the ads it is nested in), then in TARGET.  Notable attributes:
#   MY: RequestMemory = 2048, Ratio = 0.75, Owner = "alice",
#       MemoryUsage not defined, MyList = { 1,2,3 },
#       Nested = [ x = 1; y = x + 1; z = Owner ], a = b, b = a (a cycle),
#       Shared = "job", Big = 9223372036854775807
#   TARGET: Memory = 8192, Cpus = 4, Machine = "blade12.cs.wisc.edu",
#       OpSys = "LINUX", Arch = "X86_64", KeyboardIdle = 1800,
#       Shared = "machine", JobMemTwice = RequestMemory * 2
#
# VALUE is the value as HTCondor's ClassAdUnParser prints an attribute
# value in the old ClassAd syntax (as condor_q -l shows it):
#   integers in decimal; reals with printf "%.16G", with ".0" appended
#   when that has no '.', 'E' or 'e' (2.5, 1.0, 1E+30, 0.3), zero as 0.0
#   or -0.0, infinities and NaN as real("INF"), real("-INF"),
#   real("NaN"); strings in double quotes with only '"' escaped (as
#   \\"); true, false, undefined, error; lists as "{ 1,2 }" (elements
#   unparsed as written, not evaluated: {1+1} is "{ 1 + 1 }"); ads as
#   "[ a = 1 ]" (attributes in the order written; HTCondor's own order
#   is its hash table's); the empty list "{  }" and ad "[  ]"; times as
#   relTime("01:30") and absTime("1970-01-01T00:00:00-00:00").
# Values made into strings by the language itself (string(), strcat(),
# toUpper() of a number, ...) use the new syntax, as HTCondor does:
#   string(2.5) is "2.500000000000000E+00".
# An expression that does not parse has the value error.
# Functions that do not exist (sprintf, lowerCase) evaluate to error.
"""


def build():
    OUT.append(HEADER.rstrip("\n"))

    # ------------------------------------------------------------ lexing
    group("lexing", "literals as HTCondor's lexer reads them",
          "an integer is read in base 10 (current HTCondor, std::from_chars):"
          " 010 is 10, 0x1F is 0",
          "'7.' (no digit after the point) does not parse",
          "adjacent string literals are joined; \\ooo is an octal escape")
    H([("7", "7"), ("-7", "-7"), ("010", "10"), ("0", "0"),
       ("007", "7"), ("7.", "error"), ("7.0", "7.0"), (".5", "0.5"),
       ("-.5", "-0.5"), ("1e3", "1000.0"), ("1E3", "1000.0"),
       ("1.5e-3", "0.0015"), ("2.5E+2", "250.0"), ("1e400", 'real("INF")'),
       ("-1e400", 'real("-INF")'), ("1e-400", "0.0"), ("1e", "error"),
       ("1e+", "error"), ("0.1", "0.1"), ("123456789012345678", "123456789012345678"),
       ("9223372036854775807", "9223372036854775807"),
       ("-9223372036854775808", "-9223372036854775808"),
       ("1.0", "1.0"), ("100.0", "100.0"), ("1e15", "1000000000000000.0"),
       ("1e16", "1E+16"), ("123456.789", "123456.789"),
       ("0.000001", "1E-06"), ("0.0001", "0.0001"), ("1e30", "1E+30"),
       ("3.14159265358979", "3.14159265358979"),
       ("1.0/3", "0.3333333333333333"), ("2.0/3", "0.6666666666666666"),
       ("-0.0", "-0.0"), ("0.0", "0.0"), ("-(0.0)", "-0.0"),
       ('"abc"', '"abc"'), ('""', '""'), ('"a\\"b"', '"a\\"b"'),
       ('"a\\\'b"', '"a\'b"'), ('"\\101"', '"A"'), ('"\\101\\102C"', '"ABC"'),
       ('"\\x"', '"x"'), ('"a\\\\b"', '"a\\b"'), ('"ab" "cd"', '"abcd"'),
       ('size("\\n")', "1"), ('size("\\t\\r")', "2"), ('size("\\0")', "error"),
       ('"abc', "error"), ("TRUE", "true"), ("True", "true"), ("FALSE", "false"),
       ("UNDEFINED", "undefined"), ("Undefined", "undefined"),
       ("ERROR", "error"), ("(1)", "1"), ("((2))", "2"), ("1 +", "error"),
       ("(1", "error"), ("1)", "error"), ("", "error"), ("3 -1", "2"),
       ("3-1", "2"), ("3 - -1", "4"), ("2*-1", "-2"), ("- 1", "-1"),
       ("--1", "1"), ("'RequestMemory'", "2048"), ("requestmemory", "2048"),
       ("REQUESTMEMORY", "2048"), ("{1,2,}", "error"), ("{,}", "error"),
       ("[a = 1;]", "[ a = 1 ]"), ("[;a = 1;;]", "[ a = 1 ]"),
       ("[a = 1 b = 2]", "error"), ("[a = 1; a = 2].a", "2"), ("[1 = 2]", "error"), ("[]", "[  ]"), ("{}", "{  }"),
       ("{ 1 , 2 }", "{ 1,2 }"), ("{1.0, 2.50}", "{ 1.0,2.5 }"),
       ('{"a", "b"}', '{ "a","b" }'), ("{{1},{}}", "{ { 1 },{  } }"),
       ("{true, undefined, error}", "{ true,undefined,error }"),
       ("[a = {1}]", "[ a = { 1 } ]"), ("[a = [b = 2]]", "[ a = [ b = 2 ] ]"),
       ("{1+1}", "{ 1 + 1 }"), ("{a*2, (3)}", "{ a * 2,(3) }"),
       ("{x ? 1 : 2}", "{ x ? 1 : 2 }"), ("{f(1, 2)}", "{ f(1,2) }"),
       ("{x[0]}", "{ x[0] }"), ("{x.y}", "{ x.y }"), ("{MY.x}", "{ MY.x }"),
       ("{1 =?= 2}", "{ 1 =?= 2 }"), ("{1 is 2}", "{ 1 =?= 2 }"),
       ("{1 isnt 2}", "{ 1 =!= 2 }"), ("{-x}", "{  -x }"), ("{!x}", "{  !x }"),
       ("{x ?: 2}", "{ x ?: 2 }"), ("{1e300}", "{ 1E+300 }"),
       ('{"a\\"b"}', '{ "a\\"b" }'), ("{0.0, -0.0}", "{ 0.0,-0.0 }"),
       ])

    # ------------------------------------------------------------ unary
    for op, name, cm in [("-", "unary_minus", "on int/real only; -true is error"),
                         ("+", "unary_plus", "error on bool, string, list, ad"),
                         ("!", "not", "on bool and numbers (non-zero is true)"),
                         ("~", "bitwise_not", "on integers only")]:
        group(name, cm, "undefined and error pass through (strict)")
        for x in ALL + ATTR + ["2", "-1", "0.75", "1.5", "Big", '"true"']:
            for form in ("%s%s", "%s(%s)"):
                line(form % (op, x))
    H([("-TRUE", "error"), ("-true", "error"), ("-undefined", "undefined"),
       ("-error", "error"), ('-"1"', "error"), ("-{1}", "error"),
       ("+true", "error"), ('+"a"', "error"), ("+undefined", "undefined"),
       ("+2.5", "2.5"), ("!0", "true"), ("!2.5", "false"), ("!0.0", "true"),
       ('!"a"', "error"), ("!undefined", "undefined"), ("~0", "-1"),
       ("~5", "-6"), ("~true", "error"), ("~2.5", "error"),
       ("-(-9223372036854775807 - 1)", "-9223372036854775808"),
       ("-Ratio", "-0.75"), ("-MemoryUsage", "undefined")])

    # ------------------------------------------------------------ arithmetic
    arith_ops = [("+", "add"), ("-", "subtract"), ("*", "multiply"),
                 ("/", "divide"), ("%", "modulus")]
    for op, name in arith_ops:
        group(name, "int %s int is int (64-bit, wrapping); a real makes the result"
              " real; booleans count as 0 and 1" % op,
              "strings, lists and ads give error; error before undefined",
              "a real result of +inf is error; -inf and NaN are values")
        for x in SMALL:
            for y in SMALL:
                line("%s %s %s" % (x, op, y))
        for x in INT + REAL + ATTR[:4]:
            for y in INT + REAL + ["Ratio", "RequestMemory", "-7", "2", "3"]:
                line("%s %s %s" % (x, op, y))
    H([("1 + 2", "3"), ("1 + 2.0", "3.0"), ("true + 1", "2"),
       ("true + true", "2"), ("false * 3", "0"), ('"a" + 1', "error"),
       ('"a" + "b"', "error"), ("undefined + 1", "undefined"),
       ("error + undefined", "error"), ("undefined + error", "error"),
       ("{1} + 1", "error"), ("[a=1] + 1", "error"),
       ("9223372036854775807 + 1", "-9223372036854775808"),
       ("-9223372036854775807 - 2", "9223372036854775807"),
       ("9223372036854775807 * 2", "-2"), ("Big + Big", "-2"),
       ("7 / 2", "3"), ("-7 / 2", "-3"), ("7 / -2", "-3"), ("7 % 3", "1"),
       ("-7 % 3", "-1"), ("7 % -3", "1"), ("7 / 0", "error"),
       ("7 % 0", "error"), ("0 / 0", "error"), ("7.0 / 2", "3.5"),
       ("7 / 2.0", "3.5"), ("1.0 / 0", "error"), ("1 / 0.0", "error"),
       ("-1.0 / 0", 'real("-INF")'), ("-1 / 0.0", 'real("-INF")'),
       ("0.0 / 0", 'real("NaN")'), ("0 / 0.0", 'real("NaN")'),
       ("1e308 * 10", "error"), ("-1e308 * 10", 'real("-INF")'),
       ("1e308 + 1e308", "error"), ("-1e308 - 1e308", 'real("-INF")'),
       ("7.5 % 2", "error"), ("7 % 2.0", "error"), ("Ratio % 2", "error"),
       ("RequestMemory % 1000", "48"),
       ("(-9223372036854775807 - 1) / -1", "9223372036854775807"),
       ("(-9223372036854775807 - 1) % -1", "0"),
       ("Ratio * 2", "1.5"), ("RequestMemory * 3 / 2", "3072"),
       ("0.1 + 0.2", "0.3"), ("0.1 * 3", "0.3"), ("1.0 - 0.9", "0.09999999999999998"),
       ("2.5 * 4", "10.0"), ("10 / 4.0", "2.5"), ("1e15 + 0.5", "1000000000000000.0"),
       ("1e15 * 10", "1E+16"), ("0.5 - 0.5", "0.0"), ("-0.5 + 0.5", "0.0"),
       ("1e300 * 1e10", "error"), ("1e-300 * 1e-300", "0.0"),
       ("real(\"INF\") - real(\"INF\")", 'real("NaN")'),
       ("real(\"INF\") + 1", "error"), ("real(\"-INF\") * 2", 'real("-INF")'),
       ("real(\"NaN\") + 1", 'real("NaN")')])

    # ------------------------------------------------------------ shifts
    for op, name in [("<<", "shift_left"), (">>", "shift_right"),
                     (">>>", "shift_right_unsigned")]:
        group(name, "integers only (booleans and reals are error)",
              ">> keeps the sign, >>> shifts in zeros")
        for x in SMALL + ["-8", "255", "Big", "RequestMemory", "-1"]:
            for y in ["1", "3", "62", "2.5", '"abc"', "true", "undefined",
                      "error", "{1,2}", "[a = 1]", "Cpus"]:
                line("%s %s %s" % (x, op, y))
    H([("1 << 3", "8"), ("1 << 62", "4611686018427387904"),
       ("1 << 63", "-9223372036854775808"), ("3 << 62", "-4611686018427387904"),
       ("-8 >> 1", "-4"), ("-8 >>> 1", "9223372036854775804"),
       ("-1 >>> 60", "15"), ("255 >> 4", "15"), ("255 >>> 4", "15"),
       ("true << 1", "error"), ("2.0 << 1", "error"), ("1 << 1.0", "error"),
       ("undefined << 1", "undefined"), ("1 << error", "error")])

    # ------------------------------------------------------------ comparisons
    for op, name in [("<", "less"), ("<=", "less_equal"), (">", "greater"),
                     (">=", "greater_equal"), ("==", "equal"),
                     ("!=", "not_equal")]:
        group(name, "numbers compare as numbers (booleans as 0 and 1);"
              " strings only with strings, without regard to case",
              "a string with a number, lists and ads give error;"
              " undefined if an operand is")
        for x in SMALL + ['"abd"', '"ab"']:
            for y in SMALL + ['"abd"', '"ab"']:
                line("%s %s %s" % (x, op, y))
        for x in ["1", "1.0", "2", "0.75", "-1", "true"] + ATTR[:4] + ['"alice"', '"ALICE"']:
            for y in ["1", "1.0", "0.75", "2048", "true", "Ratio", "Owner",
                      "RequestMemory", "MemoryUsage", '"Alice"', "TARGET.Memory"]:
                line("%s %s %s" % (x, op, y))
    H([("1 == 1.0", "true"), ("true == 1", "true"), ("true == 2", "false"),
       ("false < true", "true"), ('"abc" == "ABC"', "true"),
       ('"abc" != "ABC"', "false"), ('"abc" < "ABD"', "true"),
       ('"B" > "a"', "true"), ('"a" == 1', "error"), ('1 == "1"', "error"),
       ('"a" == undefined', "undefined"), ('"a" == error', "error"),
       ("undefined == undefined", "undefined"), ("error == error", "error"),
       ("{1} == {1}", "error"), ("[a=1] == [a=1]", "error"),
       ("true == true", "true"), ("Owner == \"ALICE\"", "true"),
       ("MemoryUsage == 0", "undefined"), ("RequestMemory < TARGET.Memory", "true"),
       ("real(\"NaN\") == real(\"NaN\")", "false"),
       ("real(\"NaN\") != real(\"NaN\")", "true"),
       ("real(\"INF\") > 1e308", "true"), ("-0.0 == 0.0", "true"),
       ("9223372036854775807 == 9223372036854775806", "false"),
       ("9223372036854775807 == 9223372036854775806.0", "true")])

    # ------------------------------------------------------------ meta
    for op, name in [("=?=", "meta_equal"), ("=!=", "meta_not_equal"),
                     ("is", "is"), ("isnt", "isnt")]:
        group(name, "never undefined: same type and same value (strings case"
              " sensitive, no promotion: 1 =?= 1.0 is false)",
              "two lists or two ads give error")
        for x in SMALL + ['"abd"', "1", "1.0"]:
            for y in SMALL + ['"abd"', "1", "1.0"]:
                line("%s %s %s" % (x, op, y))
        for x in ATTR:
            for y in ["undefined", "2048", "0.75", '"alice"', '"ALICE"',
                      "false", "error"]:
                line("%s %s %s" % (x, op, y))
    H([("1 =?= 1.0", "false"), ("1 =?= 1", "true"), ("true =?= 1", "false"),
       ('"a" =?= "A"', "false"), ('"a" =?= "a"', "true"),
       ("undefined =?= undefined", "true"), ("error =?= error", "true"),
       ("undefined =?= error", "false"), ("MemoryUsage =?= undefined", "true"),
       ("MemoryUsage =!= undefined", "false"), ("{1} =?= {1}", "error"),
       ("[a=1] =?= [a=1]", "error"), ("{1} =?= 1", "false"),
       ("1 is 1", "true"), ("1 isnt 1.0", "true"),
       ("real(\"NaN\") =?= real(\"NaN\")", "false"),
       ('Owner =?= "alice"', "true"), ('Owner is "Alice"', "false")])

    # ------------------------------------------------------------ bitwise
    for op, name in [("&", "bitwise_and"), ("|", "bitwise_or"),
                     ("^", "bitwise_xor")]:
        group(name, "integers only: booleans, reals, strings give error")
        for x in SMALL + ["12", "-1", "Big"]:
            for y in SMALL + ["10", "255"]:
                line("%s %s %s" % (x, op, y))
    H([("12 & 10", "8"), ("12 | 10", "14"), ("12 ^ 10", "6"),
       ("true & true", "error"), ("-1 & Big", "9223372036854775807"),
       ("1 & 2.0", "error"), ("undefined & 1", "undefined"),
       ("error | undefined", "error")])

    # ------------------------------------------------------------ logical
    for op, name in [("&&", "and"), ("||", "or")]:
        group(name, "three-valued; numbers act as booleans (non-zero is"
              " true); left to right, stopping early",
              "error on the left is error; undefined on the left waits for"
              " the right; a string or list operand is error")
        for x in SMALL + ["1", "0.0", "MemoryUsage", "NiceUser", "Owner"]:
            for y in SMALL + ["1", "0.0", "MemoryUsage", "NiceUser"]:
                line("%s %s %s" % (x, op, y))
    H([("error || true", "error"), ("true || error", "true"),
       ("false || error", "error"), ("undefined || true", "true"),
       ("undefined || false", "undefined"), ("undefined || undefined", "undefined"),
       ("undefined || error", "error"), ("false && error", "false"),
       ("error && false", "error"), ("true && error", "error"),
       ("undefined && false", "false"), ("undefined && true", "undefined"),
       ("false && undefined", "false"), ("true && undefined", "undefined"),
       ('"X" || -1', "error"), ('true || "X"', "true"),
       ('false || "X"', "error"), ('undefined || "X"', "error"),
       ("1 && 2", "true"), ("0 || 0.0", "false"), ("2.5 && true", "true"),
       ("false || 5", "true"), ("true && 0", "false"),
       ("{1} || true", "error"), ("[a=1] && false", "error"),
       ("true && {1}", "error"), ("MemoryUsage > 0 || true", "true"),
       ("MemoryUsage > 0 && false", "false"),
       ("MemoryUsage > 0 && true", "undefined"),
       ("!(MemoryUsage > 0) || true", "true"),
       ("Requirements", "true"), ("TARGET.Start", "true")])

    # ------------------------------------------------------------ ternary
    group("ternary", "c ? a : b: c a number or boolean picks; undefined c is"
          " undefined; any other c is error; only the picked branch is"
          " evaluated", "a ?: b is a unless a is undefined; it binds like a"
          " subscript, its right operand a primary with selections and"
          " subscripts: a ?: b + 1 is (a ?: b) + 1")
    for c in SMALL + ["1", "0.0", "MemoryUsage", "NiceUser", "Owner"]:
        for a, b in [("1", "2"), ('"yes"', "error"), ("error", '"no"'),
                     ("undefined", "2.5")]:
            line("%s ? %s : %s" % (c, a, b))
        for b in ["1", "error", "undefined"]:
            line("%s ?: %s" % (c, b))
    H([("true ? 1 : 2", "1"), ("false ? 1 : 2", "2"), ("1 ? 1 : 2", "1"),
       ("0.0 ? 1 : 2", "2"), ("undefined ? 1 : 2", "undefined"),
       ("error ? 1 : 2", "error"), ('"a" ? 1 : 2', "error"),
       ("{} ? 1 : 2", "error"), ("true ? 1 : 1/0", "1"),
       ("false ? error : 3", "3"), ("undefined ?: 7", "7"),
       ("MemoryUsage ?: 1024", "1024"), ("RequestMemory ?: 1024", "2048"),
       ("error ?: 1", "error"), ("false ?: 1", "false"),
       ("true ? false ? 1 : 2 : 3", "2"), ("false ? 1 : true ? 2 : 3", "2"),
       ("MemoryUsage > 0 ? 1 : 2", "undefined"),
       ("RequestMemory > 1024 ? \"big\" : \"small\"", '"big"'),
       ("MemoryUsage ?: 1024 + 1", "1025"), ("1 + MemoryUsage ?: 5", "6"),
       ("MemoryUsage ?: RequestMemory * 2", "4096"), ("x ?: -1", "-1"),
       ("x ?: -y", "error"), ("undefined ? : 3", "3"),
       ("MemoryUsage ?: Nested.y", "2"), ("MemoryUsage ?: MyList[1]", "2"),
       ("undefined ?: undefined ?: 4", "4")])

    # ------------------------------------------------------------ precedence
    group("precedence", "C-like precedence and left associativity")
    H([("1 + 2 * 3", "7"), ("(1 + 2) * 3", "9"), ("10 - 4 - 3", "3"),
       ("100 / 10 / 5", "2"), ("2 * 3 % 4", "2"), ("1 + 2 << 1", "6"),
       ("1 << 2 + 1", "8"), ("1 < 2 == true", "true"), ("3 > 2 > 1", "false"),
       ("1 | 2 ^ 3 & 4", "3"), ("1 == 1 && 2 == 3 || true", "true"),
       ("true || false && false", "true"), ("!true || true", "true"),
       ("!(true || true)", "false"), ("-2 * 3", "-6"), ("- 2 * 3", "-6"),
       ("-(2 + 3)", "-5"), ("~1 + 1", "-1"), ("2 * -3", "-6"),
       ("1 - -1", "2"), ("true ? 1 : 0 + 5", "1"), ("(true ? 1 : 0) + 5", "6"),
       ("1 + 2 == 3 ? \"y\" : \"n\"", '"y"'), ("1 < 2 && 2 < 3", "true"),
       ("6 & 3 == 3", "error"), ("(6 & 3) == 2", "true"),
       ("1 =?= 1 == true", "true"), ("2 + 3 * 4 - 5 / 2 % 3", "12"),
       ("-3 % 2", "-1"), ("- 3 % 2", "-1"), ("-(3 % 2)", "-1")])

    # ------------------------------------------------------------ attributes
    group("attributes", "unscoped names: MY, then TARGET; MY. and TARGET. scope;"
          " names are case-insensitive; a missing attribute is undefined;"
          " a circular reference is undefined")
    H([("RequestMemory", "2048"), ("Ratio", "0.75"), ("Owner", '"alice"'),
       ("Cmd", '"/home/alice/bin/sim"'), ("MemoryUsage", "undefined"),
       ("MY.RequestMemory", "2048"), ("my.requestmemory", "2048"),
       ("TARGET.RequestMemory", "undefined"), ("Memory", "8192"),
       ("TARGET.Memory", "8192"), ("MY.Memory", "undefined"),
       ("target.memory", "8192"), ("Cpus", "4"), ("Machine", '"blade12.cs.wisc.edu"'),
       ("OpSys", '"LINUX"'), ("Arch", '"X86_64"'), ("KeyboardIdle", "1800"),
       ("Shared", '"job"'), ("MY.Shared", '"job"'), ("TARGET.Shared", '"machine"'),
       ("TARGET.JobMemTwice", "4096"), ("JobMemTwice", "4096"),
       ("a", "undefined"), ("b", "undefined"), ("a + 1", "undefined"),
       ("MY.a", "undefined"), ("SelfRef", "undefined"),
       ("Rank", "8"), ("MY.Rank", "8"), ("Requirements", "true"),
       ("MemoryExpr", "1024"), ("NoSuchAttr", "undefined"),
       ("TARGET.NoSuchAttr", "undefined"), ("MY.NoSuchAttr", "undefined"),
       ("MyList", "{ 1,2,3 }"), ("Names", '{ "a","b","c" }'),
       ("Nested", "[ x = 1; y = x + 1; z = Owner ]"),
       ("Nested.x", "1"), ("Nested.y", "2"), ("Nested.z", '"alice"'),
       ("Nested.w", "undefined"), ("Nested.Owner", '"alice"'),
       ("Nested.Memory", "undefined"), ("Nested[\"y\"]", "2"),
       ("Nested[\"Y\"]", "2"), ("Nested[\"w\"]", "undefined"),
       ("MY.Nested.y", "2"), ("TARGET.Nested", "undefined"),
       ("TARGET.Nested.x", "undefined"), ("Owner.x", "error"),
       ("RequestMemory.x", "error"), ("MemoryUsage.x", "undefined"),
       ("error.x", "error"), ("Big", "9223372036854775807"),
       ("Big + 1", "-9223372036854775808"), ("Empty", '""'),
       ("TARGET.CondorVersion", '"$CondorVersion: 8.8.5 Sep 24 2019 $"'),
       ("MY", "[ MyType = \"Job\"; ClusterId = 42 ]")
       if False else ("isClassAd(MY)", "true"),
       ("isClassAd(TARGET)", "true"), ("TARGET.MY.Memory", "8192"),
       ("MY.TARGET.Memory", "8192"), ("TARGET.TARGET.Owner", '"alice"'),
       ("ifThenElse(MemoryUsage =!= undefined, MAX({2048, MemoryUsage*3/2}), 1024)",
        "1024"),
       ("ifThenElse(RequestMemory =!= undefined, MAX({1024, RequestMemory*3/2}), 1024)",
        "3072"),
       ("TARGET.Memory >= RequestMemory && TARGET.OpSys == \"linux\"", "true"),
       ("TARGET.Memory / RequestMemory", "4"), ("Memory * Ratio", "6144.0"),
       ("KeyboardIdle > 15 * 60", "true"), ("(TARGET.Cpus - 1) * Ratio", "2.25")])

    group("selection", "expr.name on an ad; on a list of ads a list; error on"
          " other values; undefined on undefined")
    H([("[a = 1; b = a + 1].b", "2"), ("[a = 1; b = 2].a", "1"),
       ("[a = 1].b", "undefined"), ("[a = 1].A", "1"), ("[].a", "undefined"),
       ("[a = [b = 3]].a.b", "3"), ("[a = x; x = 5].a", "5"),
       ("[a = Owner].a", '"alice"'), ("[a = Memory].a", "undefined"),
       ("[a = {1,2}].a[1]", "2"), ("[a = 1; b = a].b", "1"),
       ("[x = 1; y = [z = x]].y.z", "1"), ("[p = 1; q = [r = parent.p]].q.r", "1"),
       ("{[a = 1], [a = 2]}.a", "{ 1,2 }"), ("{[a = 1], [b = 2]}.a", "{ 1,undefined }"),
       ("{[a = 1], 3}.a", "{ 1,error }"), ("{}.a", "{  }"),
       ("(1).a", "error"), ('"s".a', "error"), ("true.a", "error"),
       ("undefined.a", "undefined"), ("[a = 1; a2 = a * 10].a2", "10"),
       ("[c = c].c", "undefined"), ("[c = d; d = c].c", "undefined"),
       ("[c = c + 1].c", "undefined"), ("[a = 1].a + [a = 2].a", "3"),
       ("isInteger(CurrentTime)", "true"), ("CurrentTime > 1700000000", "true"),
       ("[CurrentTime = 5].CurrentTime", "5")])

    group("subscript", "list[i] with an integer from 0 (out of range is error);"
          " ad[\"name\"]; anything else error")
    H([("{1,2,3}[1]", "2"), ("{1,2,3}[0]", "1"), ("{1,2,3}[2]", "3"),
       ("{1,2,3}[3]", "error"), ("{1,2,3}[-1]", "error"), ("{}[0]", "error"),
       ("{1,2,3}[1.0]", "error"), ('{1,2,3}["1"]', "error"),
       ("{1,2,3}[true]", "error"), ("{1,2,3}[undefined]", "undefined"),
       ("{1,2,3}[error]", "error"), ("{1, 1/0}[0]", "1"), ("{1, 1/0}[1]", "error"),
       ("{1+1, 2}[0]", "2"), ("MyList[2]", "3"), ("MyList[3]", "error"),
       ("Names[0]", '"a"'), ("{{1,2},{3}}[0][1]", "2"), ("{x}[0]", "undefined"),
       ("{Owner}[0]", '"alice"'), ('[a = 1]["a"]', "1"), ('[a = 1]["A"]', "1"),
       ('[a = 1]["b"]', "undefined"), ("[a = 1][0]", "error"),
       ('"abc"[0]', "error"), ("5[0]", "error"), ("undefined[0]", "undefined"),
       ("error[0]", "error"), ("MemoryUsage[0]", "undefined"),
       ("{1,2,3}[RequestCpus]", "2"), ("{1,2,3}[1 + 1]", "3")])

    # ------------------------------------------------------------ functions
    def fn_group(name, comment, calls, extra=()):
        group("fn_" + name, *comment)
        for c in calls:
            line(c)
        H(extra)

    def over(fmt, args=ALL + ATTR):
        return [fmt % a for a in args]

    for f in ["isUndefined", "isError", "isString", "isInteger", "isReal",
              "isBoolean", "isList", "isClassAd"]:
        fn_group(f.lower(), ["true or false for any value; one argument"],
                 over(f + "(%s)") + [f + "()", f + "(1, 2)"])
    H([("isUndefined(MemoryUsage)", "true"), ("isUndefined(undefined)", "true"),
       ("isUndefined(error)", "false"), ("isError(error)", "true"),
       ("isError(1/0)", "true"), ("isError(undefined)", "false"),
       ("isInteger(true)", "false"), ("isInteger(1.0)", "false"),
       ("isReal(1.0)", "true"), ("isReal(Ratio)", "true"),
       ("isString(Owner)", "true"), ("isBoolean(1)", "false"),
       ("isBoolean(NiceUser)", "true"), ("isList(MyList)", "true"),
       ("isClassAd(Nested)", "true"), ("isList({})", "true"),
       ("isUndefined()", "error"), ("isError(1, 2)", "error"),
       ("isAbstime(1)", "false"), ("isReltime(1)", "false"),
       ("isUndefined(a)", "true")])

    fn_group("int", ["int(): reals truncate, strings read as by strtod (a"
                     " number's prefix), true is 1; undefined stays undefined"],
             over("int(%s)") + over("int(%s)", ['"12abc"', '" 42"', '"-7.9"',
                                              '"1e3"', '"abc"', '"0"', '"+5"',
                                              '"0x10"', "-2.5", "2.9",
                                              "1e18", '"-0"']),
             [("int(2.9)", "2"), ("int(-2.9)", "-2"), ("int(true)", "1"),
              ("int(false)", "0"), ('int("12abc")', "12"), ('int("abc")', "error"),
              ('int("")', "error"), ('int(" 42")', "42"), ('int("1e3")', "1000"),
              ('int("0x10")', "16"), ("int(undefined)", "undefined"),
              ("int(error)", "error"), ("int({1})", "error"), ("int([a=1])", "error"),
              ("int(Ratio)", "0"), ("int()", "error"), ("int(1, 2)", "error"),
              ('int("0")', "0")])

    fn_group("real", ["real(): as int() but to real; real(\"INF\"), real(\"NaN\")"],
             over("real(%s)") + over("real(%s)", ['"12abc"', '"2.5"', '"INF"',
                                                '"-INF"', '"NaN"', '"inf"',
                                                '"abc"', '" 1e2"', '".5"',
                                                '"1e400"']),
             [("real(3)", "3.0"), ("real(true)", "1.0"), ('real("2.5")', "2.5"),
              ('real("12abc")', "12.0"), ('real("abc")', "error"),
              ('real("INF")', 'real("INF")'), ('real("-INF")', 'real("-INF")'),
              ('real("NaN")', 'real("NaN")'), ("real(undefined)", "undefined"),
              ("real(error)", "error"), ("real({})", "error"), ("real()", "error"),
              ("real(RequestMemory)", "2048.0")])

    fn_group("string", ["string(): numbers and booleans printed in the new"
                        " syntax (reals as %1.15E), lists and ads unparsed;"
                        " undefined stays undefined"],
             over("string(%s)") + over("string(%s)", ["1e30", "0.1", "-1.5",
                                                    "1/3.0", "1e-5", "123456789.0",
                                                    "{1.5}", "[b = 2.5]"]),
             [("string(2.5)", '"2.500000000000000E+00"'),
              ("string(1.0)", '"1.000000000000000E+00"'),
              ("string(1e30)", '"1.000000000000000E+30"'),
              ("string(0.0)", '"0.0"'), ("string(-0.0)", '"-0.0"'),
              ("string(false)", '"false"'), ("string(true)", '"true"'),
              ("string(42)", '"42"'), ("string(-7)", '"-7"'),
              ('string("a")', '"a"'), ("string(undefined)", "undefined"),
              ("string(error)", "error"), ("string({1,2})", '"{ 1,2 }"'),
              ("string({\"a\"})", '"{ \\"a\\" }"'),
              ("string([a = 1])", '"[ a = 1 ]"'),
              ('string(real("INF"))', '"real(\\"INF\\")"'),
              ('string(real("NaN"))', '"real(\\"NaN\\")"'),
              ("string(Ratio)", '"7.500000000000000E-01"'),
              ("string(RequestMemory)", '"2048"'), ("string()", "error")])

    fn_group("bool", ['bool(): numbers non-zero; strings "true"/"false" in any'
                      " case, other strings undefined"],
             over("bool(%s)") + over("bool(%s)", ['"true"', '"FALSE"', '"yes"',
                                                '"1"', '"True"', "0.0", "-1"]),
             [("bool(1)", "true"), ("bool(0)", "false"), ("bool(0.0)", "false"),
              ("bool(2.5)", "true"), ('bool("TRUE")', "true"),
              ('bool("false")', "false"), ('bool("yes")', "undefined"),
              ('bool("1")', "undefined"), ("bool(undefined)", "undefined"),
              ("bool(error)", "error"), ("bool({})", "error"),
              ("bool([a=1])", "error"), ("bool()", "error")])

    for f in ["floor", "ceiling", "ceil", "round"]:
        fn_group(f, ["%s(): integers unchanged; anything else converted to"
                     " real (undefined too is then error); round() rounds"
                     " halves to even (rint)" % f],
                 over(f + "(%s)") + over(f + "(%s)", ["2.5", "3.5", "-2.5",
                                                      "-0.5", "0.5", "1.4999",
                                                      "2.6", "-2.6", '"2.5"',
                                                      '"7"', '"x"', "1e10",
                                                      "Ratio", "-7"]) +
                 [f + "()", f + "(1, 2)"])
    H([("round(2.5)", "2"), ("round(3.5)", "4"), ("round(-2.5)", "-2"),
       ("round(0.5)", "0"), ("round(1.5)", "2"), ("round(2.6)", "3"),
       ("round(undefined)", "error"), ("round(error)", "error"),
       ('round("2.5")', "2"), ("round(true)", "1"), ("round(7)", "7"),
       ("floor(2.5)", "2"), ("floor(-2.5)", "-3"), ("ceiling(2.1)", "3"),
       ("ceil(-2.1)", "-2"), ("floor(undefined)", "error"),
       ("floor(\"x\")", "error"), ("floor({})", "error"), ("floor(Ratio)", "0"),
       ("ceiling(Ratio)", "1"), ("round(Ratio)", "1"), ("round()", "error")])

    fn_group("pow", ["pow(a, b): integer for integers with b >= 0, else real"],
             [("pow(%s, %s)" % (a, b)) for a in ["2", "-2", "2.0", "0", "10",
                                                  '"2"', "true", "undefined",
                                                  "error", "{1}", "Ratio"]
              for b in ["0", "1", "3", "-1", "0.5", "2.0", "undefined",
                        "error", '"x"']] + ["pow(2)", "pow()", "pow(1,2,3)"],
             [("pow(2, 10)", "1024"), ("pow(2, -1)", "0.5"), ("pow(2.0, 3)", "8.0"),
              ("pow(2, 0.5)", "1.414213562373095"), ("pow(-8, 1.0/3)", 'real("NaN")'),
              ("pow(0, -1)", 'real("INF")'), ("pow(undefined, 2)", "error"),
              ("pow(2)", "error"), ("pow(10, 18)", "1000000000000000000"),
              ("pow(3, 3)", "27")])

    fn_group("quantize", ["quantize(a, b): the next multiple of b at or above a;"
                          " with a list, the first element at or above a"],
             [("quantize(%s, %s)" % (a, b)) for a in ["0", "5", "8", "5.5",
                                                      "-3", "undefined", "error",
                                                      '"6"', "RequestMemory", "100"]
              for b in ["4", "2.5", "0", "{2,4,8}", "{}", "{1.5}", "undefined",
                        '"x"', "1024"]],
             [("quantize(5, 4)", "8"), ("quantize(8, 4)", "8"),
              ("quantize(5.5, 2)", "6.0"), ("quantize(5, 2.5)", "5.0"),
              ("quantize(5, {2,4,8})", "8"), ("quantize(100, {2,4,8})", "104"),
              ("quantize(5, 0)", "5"), ("quantize(RequestMemory, 1000)", "3000"),
              ("quantize(undefined, 4)", "error")])

    fn_group("random", ["random(): only the type and range are fixed"],
             [],
             [("isInteger(random(10))", "true"), ("isReal(random(1.0))", "true"),
              ("isReal(random())", "true"), ("random(10) < 10", "true"),
              ("random(10) >= 0", "true"), ("random(1)", "0"),
              ("random(\"x\")", "error"), ("random(1, 2)", "error"),
              ("random(undefined)", "error"), ("random(1.0) < 1.0", "true")])

    for f in ["sum", "avg", "min", "max"]:
        fn_group(f, ["%s(list): one list argument; undefined elements skipped;"
                     " a non-number element is error" % f],
                 over(f + "(%s)") + [f + "(%s)" % l for l in [
                     "{1,2,3}", "{1,2.5}", "{2,2}", "{}", "{undefined}",
                     "{undefined, 4}", "{1, \"a\"}", "{1, error}", "{true, 2}",
                     "{true}", "{1.0, 1}", "{1, 1.0}", "{-1, -5, 3}", "MyList",
                     "{RequestMemory, TARGET.Memory}", "{Ratio, 0.25}",
                     "{{1}}", "{[a=1]}", "{2, MemoryUsage}",
                     "{9223372036854775807, 1}", "{0.1, 0.2}"]] +
                 [f + "(1, 2)", f + "()", f + "({1}, {2})"])
    H([("sum({1,2,3})", "6"), ("sum({1,2.5})", "3.5"), ("sum({})", "0"),
       ("sum({undefined})", "0"), ("sum({true, 2})", "3"), ("sum({true})", "true"),
       ("sum({1, \"a\"})", "error"), ("sum(undefined)", "undefined"),
       ("sum(1)", "error"), ("sum(1, 2)", "error"), ("avg({1,2})", "1.5"),
       ("avg({2,2})", "2.0"), ("avg({})", "0"), ("avg({undefined, 4})", "4.0"),
       ("min({3,1,2})", "1"), ("max({3,1,2})", "3"), ("min({})", "undefined"),
       ("min({1, 1.0})", "1"), ("min({1.0, 1})", "1.0"), ("max({2, 2.5})", "2.5"),
       ("max({1, \"a\"})", "error"), ("max(1, 2)", "error"),
       ("max({1, undefined})", "1"), ("max(MyList)", "3"),
       ("min({undefined})", "undefined"), ("max({true, 0})", "true"),
       ("MAX({2048, MemoryUsage*3/2})", "2048")])

    fn_group("size", ["size(): characters of a string, elements of a list,"
                      " attributes of an ad; undefined stays undefined"],
             over("size(%s)") + ["size()", "size(1, 2)", 'size("a b")',
                                 "size(Nested)", "size(MyList)", "size(Cmd)"],
             [("size({})", "0"), ("size({1,2})", "2"), ('size("abc")', "3"),
              ('size("")', "0"), ("size([a = 1; b = 2])", "2"), ("size([])", "0"),
              ("size(undefined)", "undefined"), ("size(error)", "error"),
              ("size(5)", "error"), ("size(true)", "error"), ("size(2.5)", "error"),
              ("size(Owner)", "5"), ("size(MemoryUsage)", "undefined")])

    fn_group("member", ["member(x, list): == against each element (strings"
                        " case-insensitively); undefined x or list is undefined"],
             [("member(%s, %s)" % (x, l)) for x in SMALL + ['"a"', '"A"', "1", "2.0", "MemoryUsage"]
              for l in ['{1,2,3}', '{"a","b"}', '{1,"a",2.5}', "{}", "undefined",
                        "MyList", '"a,b"', "{undefined, 1}", "{error, 1}"]] +
             ["member(1)", "member({1}, 1)", "member(1, {1}, 2)"],
             [("member(2, {1,2,3})", "true"), ("member(4, {1,2,3})", "false"),
              ('member("A", {"a","b"})', "true"), ("member(2.0, {1,2,3})", "true"),
              ("member(true, {1})", "true"), ("member(undefined, {1})", "undefined"),
              ("member(1, undefined)", "undefined"), ("member(error, {1})", "error"),
              ("member(1, 1)", "error"), ("member({1}, {{1}})", "error"),
              ('member("a", {1, "a"})', "true"), ("member(1, {error, 1})", "true"),
              ("member(2, MyList)", "true")])

    fn_group("identicalmember", ["identicalMember(x, list): =?= against each"
                                 " element: no promotion, case-sensitive"],
             [("identicalMember(%s, %s)" % (x, l)) for x in SMALL + ['"a"', '"A"', "1", "2.0", "MemoryUsage"]
              for l in ['{1,2,3}', '{"a","b"}', '{1,"a",2.5}', "{}", "undefined",
                        "{undefined, 1}", "{error, 1}"]],
             [("identicalMember(2.0, {1,2,3})", "false"),
              ('identicalMember("A", {"a"})', "false"),
              ("identicalMember(undefined, {undefined})", "true"),
              ("identicalMember(undefined, {1})", "false"),
              ("identicalMember(error, {error})", "true"),
              ("identicalMember(1, undefined)", "undefined")])

    for f in ["anyCompare", "allCompare"]:
        fn_group(f.lower(), ["%s(op, list, x): op one of < <= == != > >= is isnt"
                             % f],
                 [('%s("%s", %s, %s)' % (f, op, l, x))
                  for op in ["<", "<=", "==", "!=", ">", ">=", "is", "isnt", "=~"]
                  for l in ["{1,2,3}", "{}", '{"a","B"}', "{undefined, 1}"]
                  for x in ["2", '"b"', "undefined"]] +
                 ['%s("<", 1, 2)' % f, '%s(1, {1}, 2)' % f,
                  '%s(undefined, {1}, 2)' % f, '%s("<", undefined, 2)' % f,
                  '%s("<", {1})' % f])
    H([('anyCompare("<", {1,2,3}, 2)', "true"), ('allCompare("<", {1,2,3}, 4)', "true"),
       ('allCompare("<", {1,2,3}, 2)', "false"), ('anyCompare("<", {}, 2)', "false"),
       ('allCompare("<", {}, 2)', "true"), ('anyCompare("==", {"a","B"}, "b")', "true"),
       ('anyCompare("is", {"a","B"}, "b")', "false"),
       ('anyCompare("<", {undefined, 1}, 2)', "false"),
       ('allCompare("<", {undefined, 1}, 2)', "false"),
       ('anyCompare("=~", {1}, 2)', "error"), ('anyCompare("<", {"a"}, 2)', "error"),
       ('anyCompare(undefined, {1}, 2)', "undefined")])

    fn_group("strcat", ["strcat(...): strings joined; other values in the new"
                        " syntax; undefined makes undefined, error error"],
             over('strcat("x", %s)') + over('strcat(%s, "y")', SMALL + ATTR) +
             ["strcat()", 'strcat("a")', 'strcat("a", "b", "c")'],
             [('strcat("a", 2.5, true)', '"a2.500000000000000E+00true"'),
              ('strcat("a", "b")', '"ab"'), ("strcat()", '""'),
              ("strcat(1, 2)", '"12"'), ('strcat("a", undefined)', "undefined"),
              ('strcat("a", error)', "error"), ('strcat(undefined, error)', "undefined"),
              ('strcat(error, undefined)', "error"), ('strcat("a", {1})', '"a{ 1 }"'),
              ('strcat(Owner, "@", Machine)', '"alice@blade12.cs.wisc.edu"'),
              ('strcat("r", Ratio)', '"r7.500000000000000E-01"'),
              ('strcat("a", false)', '"afalse"')])

    fn_group("join", ["join(sep, a, b, ...) or join(sep, list) or join(list);"
                      " undefined items skipped"],
             over('join(",", %s)') + over('join(",", "a", %s)', SMALL) +
             ['join()', 'join(",")', 'join({"a","b"})', 'join(", ", Names)',
              'join(",", MyList)', 'join(undefined, "a", "b")'],
             [('join(",", "a", "b")', '"a,b"'), ('join(",", {"a","b"})', '"a,b"'),
              ('join({"a","b"})', '"ab"'), ('join(",", {})', '""'),
              ('join(",", {"a", undefined, "b"})', '"a,b"'),
              ('join(",", "a", undefined, "b")', '"a,b"'),
              ('join(",", undefined)', "undefined"), ("join()", '""'),
              ('join(",", "a", error)', "error"), ('join("-", 1, 2.5)',
                                                   '"1-2.500000000000000E+00"'),
              ('join(", ", Names)', '"a, b, c"'), ('join(",", MyList)', '"1,2,3"')])

    for f in ["toUpper", "toLower"]:
        fn_group(f.lower(), ["%s(): other values converted to strings first" % f],
                 over(f + "(%s)") + over(f + "(%s)", ['"MiXeD 1"', "Machine",
                                                      "1e30", "true"]) +
                 [f + "()", f + '("a", "b")'])
    H([('toUpper("abc")', '"ABC"'), ('toLower("ABC")', '"abc"'),
       ("toUpper(true)", '"TRUE"'), ("toUpper(2.5)", '"2.500000000000000E+00"'),
       ("toLower(1e30)", '"1.000000000000000e+30"'), ("toUpper(undefined)", "undefined"),
       ("toUpper(error)", "error"), ("toUpper({\"a\"})", '"{ \\"A\\" }"'),
       ("toUpper()", "error"), ("toLower(Owner)", '"alice"')])

    fn_group("substr", ["substr(s, offset [, length]): negative offset from"
                        " the end; negative length leaves that many off"],
             [("substr(%s, %s)" % (s, o)) for s in ['"abcdef"', '""', "Owner",
                                                    "undefined", "error", "123"]
              for o in ["0", "2", "-2", "6", "10", "-10", "1.0", '"1"',
                        "undefined"]] +
             [('substr("abcdef", %s, %s)' % (o, l)) for o in ["0", "1", "-3", "4", "7"]
              for l in ["0", "1", "2", "-1", "-5", "10", "undefined", "2.0"]] +
             ['substr("abc")', "substr()", 'substr("abc", 1, 1, 1)'],
             [('substr("abcdef", 2)', '"cdef"'), ('substr("abcdef", -2)', '"ef"'),
              ('substr("abcdef", 1, 3)', '"bcd"'), ('substr("abcdef", 1, -1)', '"bcde"'),
              ('substr("abcdef", 10)', '""'), ('substr("abcdef", -10, 2)', '"ab"'),
              ('substr("abcdef", 1, 0)', '""'), ('substr("abcdef", 4, 10)', '"ef"'),
              ('substr(undefined, 1)', "undefined"), ('substr("abc", undefined)', "undefined"),
              ('substr(123, 1)', "error"), ('substr("abc", 1.0)', "error"),
              ('substr("abc")', "error")])

    for f in ["strcmp", "stricmp"]:
        fn_group(f, ["%s(a, b): -1, 0 or 1; non-strings converted to strings;"
                     " undefined if either is" % f],
                 [("%s(%s, %s)" % (f, a, b)) for a in SMALL + ['"abd"', '"ab"', "1"]
                  for b in ['"abc"', '"ABC"', '"abd"', '"ab"', '"7"', "7",
                            "undefined", "error", "true", '"true"']] +
                 [f + '("a")', f + "()"])
    H([('strcmp("a", "b")', "-1"), ('strcmp("b", "a")', "1"), ('strcmp("a", "a")', "0"),
       ('strcmp("a", "A")', "1"), ('stricmp("a", "A")', "0"),
       ('strcmp("abc", "abd")', "-1"), ('strcmp(7, "7")', "0"),
       ('strcmp(true, "true")', "0"), ('strcmp(undefined, "a")', "undefined"),
       ('strcmp("a", error)', "error"), ('strcmp("a")', "error"),
       ('strcmp(2.5, "2.5")', "1")])

    fn_group("versioncmp", ["versioncmp(a, b): natural order (numbers compare"
                            " as numbers), the difference as an integer;"
                            " versionGT and the like booleans"],
             [("versioncmp(%s, %s)" % (a, b)) for a in ['"1.10"', '"1.9"', '"8.8.5"',
                                                        '"8.10.0"', '"a"', '"1.01"', "10",
                                                        "undefined", '""']
              for b in ['"1.10"', '"1.9"', '"8.8.5"', '"a"', '"c"', '"1.1"', "9",
                        "undefined", "error"]] +
             [("%s(%s, %s)" % (f, a, b))
              for f in ["versionGT", "versionGE", "versionLT", "versionLE", "versionEQ"]
              for a in ['"8.8.5"', '"8.10.0"', '"1.01"']
              for b in ['"8.8.5"', '"8.9"', '"1.1"', "undefined"]] +
             [('version_in_range("8.8.5", "8.8.0", "8.9.0")',
               'version_in_range("9.0", "8.8.0", "8.9.0")',
               'version_in_range("8.8.5", undefined, "8.9.0")',
               'versioncmp("a")')][0:0] +
             ['version_in_range("8.8.5", "8.8.0", "8.9.0")',
              'version_in_range("9.0", "8.8.0", "8.9.0")',
              'version_in_range("8.8.5", undefined, "8.9.0")', 'versioncmp("a")'],
             [('versioncmp("1.10", "1.9")', "1"), ('versioncmp("1.9", "1.10")', "-1"),
              ('versioncmp("a", "c")', "-2"), ('versioncmp("8.8.5", "8.8.5")', "0"),
              ('versionGT("8.10.0", "8.9")', "true"), ('versionLT("8.8.5", "8.9")', "true"),
              ('versioncmp(undefined, "1")', "undefined"), ('versioncmp("a")', "error"),
              ('version_in_range("8.8.5", "8.8.0", "8.9.0")', "true")])

    fn_group("regexp", ["regexp(pattern, target [, options]): PCRE search;"
                        " options i m s x; error before undefined"],
             [('regexp(%s, %s)' % (p, t)) for p in ['"^a"', '"b+"', '"\\\\d+"', '"A"',
                                                    '"^$"', '"("', '"a|b"', '"."',
                                                    "undefined", "error", "1"]
              for t in ['"abc"', '"ABC"', '"abc123"', '""', "Owner", "undefined",
                        "error", "5"]] +
             [('regexp("a", "ABC", %s)' % o) for o in ['"i"', '""', '"I"', '"m"',
                                                      "undefined", "error", "1"]] +
             ['regexp("a")', 'regexp()', 'regexp("a", "b", "i", "x")'],
             [('regexp("\\\\d+", "abc123")', "true"), ('regexp("\\\\d+", "abc")', "false"),
              ('regexp("\\d+", "abc123")', "false"), ('regexp("\\d+", "ddd")', "true"),
              ('regexp("^a.c$", "abc")', "true"), ('regexp("A", "abc")', "false"),
              ('regexp("A", "abc", "i")', "true"), ('regexp("(", "abc")', "error"),
              ('regexp(undefined, "a")', "undefined"), ('regexp("a", error)', "error"),
              ('regexp(1, "1")', "error"), ('regexp("a")', "error"),
              ('regexp("^blade\\\\d+\\\\.cs", Machine)', "true"),
              ('regexp("[[:digit:]]+", "a1")', "true") if False else
              ('regexp("[0-9]+", "a1")', "true"),
              ('regexp("^.+$", "a\\nb")', "false"), ('regexp("^.+$", "a\\nb", "s")', "true"),
              ('regexp("^b$", "a\\nb", "m")', "true"),
              # look-around and back-references (PCRE's pcre2pattern)
              ('regexp("a(?=b)", "ab")', "true"), ('regexp("a(?=b)", "ac")', "false"),
              ('regexp("a(?!b)", "ab")', "false"), ('regexp("a(?!b)", "ac")', "true"),
              ('regexp("(?<=a)b", "ab")', "true"), ('regexp("(?<!a)b", "ab")', "false"),
              ('regexp("(?<!foo)bar", "foobar")', "false"),
              ('regexp("(?<=\\\\d{3})(?<!999)foo", "123foo")', "true"),
              ('regexp("(?<=a+)b", "ab")', "error"),
              ('regexp("(\\\\w)\\\\1", "abba")', "true"), ('regexp("(\\\\w)\\\\1", "abab")', "false"),
              ('regexp("^(\\\\w+) \\\\1$", "ab AB")', "false"),
              ('regexp("^(\\\\w+) \\\\1$", "ab AB", "i")', "true"),
              ('regexp("(?P<c>.)(?P=c)", "xyy")', "true"),
              ('regexp("(a)\\\\2", "aa")', "error")])

    fn_group("regexps", ["regexps(pattern, target, replacement [, options]):"
                         " the replacement of the first match (\\N is group N),"
                         " the empty string without a match"],
             [('regexps(%s, %s, %s)' % (p, t, r))
              for p in ['"(a)(b)?"', '"b"', '"x"', "undefined", '"("']
              for t in ['"abcab"', '""', "Owner", "undefined", "error"]
              for r in ['"[\\\\1]"', '"<\\\\0>"', '"z"', '"\\\\2"', "undefined"]],
             [('regexps("(\\\\w+)@(\\\\w+)", "alice@wisc", "\\\\2:\\\\1")', '"wisc:alice"'),
              ('regexps("b", "abc", "X")', '"X"'), ('regexps("z", "abc", "X")', '""'),
              ('regexps("(a)", "abc", "\\\\2")', "error"),
              ('regexps("B", "abc", "X", "i")', '"X"'),
              ('regexps("a", "abc", undefined)', "undefined"),
              ('regexps("a", "abc", 1)', "error"),
              ('regexps("(?<=@)(\\\\w+)", "alice@wisc", "\\\\1")', '"wisc"'),
              ('regexps("(?=(\\\\w+))", "  hi", "[\\\\1]")', '"[hi]"'),
              ('regexps("(\\\\w+) \\\\1", "a b b c", "<\\\\1>")', '"<b>"')])

    for f in ["replace", "replaceAll"]:
        fn_group(f.lower(), ["%s(pattern, target, replacement [, options]): the"
                             " target with the first (replace) or every"
                             " (replaceAll) match replaced" % f],
                 [('%s(%s, %s, %s)' % (f, p, t, r))
                  for p in ['"a"', '"(a)(n)"', '"x"', '"^"', "undefined"]
                  for t in ['"banana"', '""', "Machine", "undefined"]
                  for r in ['"o"', '"\\\\2\\\\1"', '""', "error"]] +
                 [f + '("a", "banana")', f + '("A", "banana", "o", "i")'])
    H([('replace("a", "banana", "o")', '"bonana"'),
       ('replaceAll("a", "banana", "o")', '"bonono"'),
       ('replaceall("a", "banana", "o")', '"bonono"'),
       ('replace("x", "banana", "o")', '"banana"'),
       ('replaceAll("(a)(n)", "banana", "\\\\2\\\\1")', '"bnanaa"'),
       ('replaceAll("A", "banana", "o", "i")', '"bonono"'),
       ('replaceAll("\\\\.", Machine, "_")', '"blade12_cs_wisc_edu"'),
       ('replace("a", "banana")', "error"),
       ('replaceAll("(?<=\\\\d)(?=(\\\\d{3})+$)", "1234567", ",")', '"1,234,567"'),
       ('replaceAll("(?<!n)a", "banana", "o")', '"bonana"'),
       ('replace("(\\\\w)\\\\1", "abbc", "-")', '"a-c"')])

    fn_group("regexpmember", ["regexpMember(pattern, list [, options]): true if"
                              " an element matches; undefined elements make a"
                              " false result undefined"],
             [('regexpMember(%s, %s)' % (p, l)) for p in ['"^a"', '"z"', "undefined", '"("']
              for l in ['{"abc", "x"}', "{}", '{"b", undefined}', '{"a", 1}',
                        "undefined", '"abc"']],
             [('regexpMember("^a", {"x", "abc"})', "true"),
              ('regexpMember("z", {"x", undefined})', "undefined"),
              ('regexpMember("z", {"x", 1})', "error"),
              ('regexpMember("a", "abc")', "error")])

    fn_group("stringlistsize", ["stringListSize(s [, delims]): items of a string"
                                " list, delimiters \", \" by default; empty"
                                " items not counted"],
             over("stringListSize(%s)", ['"a,b,c"', '"a, b, c"', '""', '"a"',
                                         '"a,,b"', '" a , b "', '"a;b"', "Sites",
                                         "undefined", "error", "1", "{1}"]) +
             over('stringListSize("a;b,c", %s)', ['";"', '","', '""', "undefined"]) +
             ["stringListSize()", 'stringListSize("a", ",", 1)'],
             [('stringListSize("a,b,c")', "3"), ('stringListSize("")', "0"),
              ('stringListSize("a,,b")', "2"), ("stringListSize(undefined)", "error"),
              ('stringListSize("a;b", ";")', "2"), ("stringListSize(Sites)", "3")])

    for f in ["stringListSum", "stringListAvg", "stringListMin", "stringListMax"]:
        fn_group(f.lower(), ["%s(s [, delims]): integer if every item is an"
                             " integer, else real; an item not a number is"
                             " error" % f],
                 over(f + "(%s)", ['"1,2,3"', '"1,2.5"', '""', '"4"', '"1,x"',
                                   '"-5,-3"', '"10 20"', '"1e2,1"', "undefined",
                                   "error", "3", '"2,2"']) +
                 [f + '("1;2", ";")', f + "()"])
    H([('stringListSum("1,2,3")', "6"), ('stringListSum("1,2.5")', "3.5"),
       ('stringListSum("")', "0.0"), ('stringListAvg("1,2")', "1"),
       ('stringListAvg("1,2.0")', "1.5"), ('stringListMin("3,1,2")', "1"),
       ('stringListMax("3,1,2")', "3"), ('stringListMin("")', "undefined"),
       ('stringListSum("1,x")', "error"), ("stringListSum(undefined)", "error")])

    for f in ["stringListMember", "stringListIMember"]:
        fn_group(f.lower(), ["%s(item, s [, delims]): delimiters comma and"
                             " white space by default; undefined counts as the"
                             " empty string unless both are undefined" % f],
                 [("%s(%s, %s)" % (f, x, l)) for x in ['"a"', '"A"', '"b"', '""',
                                                       "undefined", "error", "1",
                                                       '"cern"', "Owner"]
                  for l in ['"a,b,c"', '"A, B"', '"a b\tc"'.replace("\t", " "),
                            '""', "undefined", "Sites", '"alice"', "{\"a\"}"]] +
                 [f + '("a", "x;a", ";")', f + '("a")', f + '("a", "a", undefined)'])
    H([('stringListMember("a", "a,b,c")', "true"),
       ('stringListMember("A", "a,b,c")', "false"),
       ('stringListIMember("A", "a,b,c")', "true"),
       ('stringListMember(undefined, "a,b")', "false"),
       ('stringListMember("a", undefined)', "false"),
       ('stringListMember(undefined, undefined)', "undefined"),
       ('stringListMember(1, "1,2")', "error"),
       ('stringListMember("cern", Sites)', "true"),
       ('stringListMember("b", "a b")', "true"),
       ('stringListMember("a", "x;a", ";")', "true"),
       ('stringListMember("a")', "error")])

    for f in ["stringListSubsetMatch", "stringListISubsetMatch"]:
        fn_group(f.lower(), ["%s(items, s [, delims]): every item of the first"
                             " list is in the second" % f],
                 [("%s(%s, %s)" % (f, x, l)) for x in ['"a"', '"a,b"', '"A,b"', '""',
                                                       "undefined", '"a,z"', "1"]
                  for l in ['"a,b,c"', '""', "undefined", '"B, a"']])
    H([('stringListSubsetMatch("a,b", "a,b,c")', "true"),
       ('stringListSubsetMatch("a,z", "a,b,c")', "false"),
       ('stringListSubsetMatch("", "a")', "true"),
       ('stringListSubsetMatch("A,b", "a,b,c")', "false"),
       ('stringListISubsetMatch("A,b", "a,b,c")', "true")])

    fn_group("stringlist_regexpmember", ["stringList_regexpMember(pattern, s"
                                         " [, delims [, options]])"],
             [("stringList_regexpMember(%s, %s)" % (p, l))
              for p in ['"^a"', '"z"', '"A"', "undefined"]
              for l in ['"abc,x"', '""', "undefined", "Sites"]] +
             ['stringList_regexpMember("A", "abc,x", ",", "i")',
              'stringList_regexpMember("^x", "abc;x", ";")'],
             [('stringList_regexpMember("^a", "abc,x")', "true"),
              ('stringList_regexpMember("z", "")', "undefined"),
              ('stringList_regexpMember("A", "abc,x", ",", "i")', "true"),
              ('stringListRegexpMember("^a", "abc")', "error"),
              ('stringList_regexpMember("^(.)\\\\1", "ab, cc")', "true"),
              ('stringList_regexpMember("(?<!a)b", "ab, xab")', "false")])

    fn_group("stringlistsintersect", ["stringListsIntersect(a, b [, delims])"],
             [("stringListsIntersect(%s, %s)" % (a, b))
              for a in ['"a,b"', '"x"', '""', "undefined", "error", "1"]
              for b in ['"b,c"', '"a"', '""', "undefined", '"A"']] +
             ['stringListsIntersect("a;b", "b", ";")'],
             [('stringListsIntersect("a,b", "b,c")', "true"),
              ('stringListsIntersect("a,b", "c")', "false"),
              ('stringListsIntersect("a", "A")', "false"),
              ('stringListsIntersect(undefined, "a")', "undefined")])

    fn_group("split", ["split(s [, seps]): a list of strings; separators"
                       " comma, space and tab by default"],
             over("split(%s)", ['"a b,c"', '"a, b"', '"a,,b"', '""', '" a "',
                                '"a  b"', "Sites", "undefined", "error", "1"]) +
             ['split("a;b", ";")', 'split("a;;b", ";")', 'split("abc", "")',
              'split("a b", 1)', "split()"],
             [('split("a b,c")', '{ "a","b","c" }'), ('split("a, b")', '{ "a","b" }'),
              ('split("a,,b")', '{ "a","","b" }'), ('split("")', "{  }"),
              ('split("a;b", ";")', '{ "a","b" }'), ("split(undefined)", "error"),
              ('size(split("a b c"))', "3")])

    for f in ["splitUserName", "splitSlotName"]:
        fn_group(f.lower(), ["%s(s): two strings, split at the first @" % f],
                 over(f + "(%s)", ['"alice@wisc.edu"', '"alice"', '"@x"', '"a@b@c"',
                                   '""', "User", "TARGET.Name", "undefined", "1"]) +
                 [f + "()"])
    H([('splitUserName("alice@wisc.edu")', '{ "alice","wisc.edu" }'),
       ('splitUserName("alice")', '{ "alice","" }'),
       ('splitSlotName("slot1@host")', '{ "slot1","host" }'),
       ('splitSlotName("host")', '{ "","host" }'),
       ('splitUserName(undefined)', "error"),
       ("splitSlotName(TARGET.Name)[1]", '"blade12.cs.wisc.edu"')])

    fn_group("ifthenelse", ["ifThenElse(c, a, b): c a number or boolean; c"
                            " undefined is undefined; other c error; only the"
                            " chosen branch evaluated"],
             [("ifThenElse(%s, 1, 2)" % c) for c in ALL + ATTR + ["1", "0.0"]] +
             ["ifThenElse(true, 1)", "ifThenElse()", "ifThenElse(true, 1, 2, 3)"],
             [("ifThenElse(true, 1, 2)", "1"), ("ifThenElse(0, 1, 2)", "2"),
              ("ifThenElse(undefined, 1, 2)", "undefined"),
              ("ifThenElse(error, 1, 2)", "error"), ('ifThenElse("a", 1, 2)', "error"),
              ("ifThenElse(true, 1, 1/0)", "1"), ("ifThenElse(false, 1/0, 2)", "2"),
              ("ifThenElse(2.5, 1, 2)", "1"), ("ifThenElse(true, 1)", "error"),
              ("ifThenElse(MemoryUsage > 1, 1, 2)", "undefined")])

    fn_group("interval", ["interval(seconds): [days+]hh:mm:ss without leading"
                          " zero fields"],
             over("interval(%s)", ["0", "59", "60", "61", "3599", "3600", "3661",
                                   "86399", "86400", "90061", "-61", "-90061",
                                   "2.9", '"120"', "undefined", "error",
                                   "KeyboardIdle", "true"]) + ["interval()"],
             [("interval(0)", '"0"'), ("interval(61)", '"1:01"'),
              ("interval(3661)", '"1:01:01"'), ("interval(90061)", '"1+01:01:01"'),
              ("interval(-61)", '"-1:01"'), ("interval(undefined)", "error"),
              ("interval(KeyboardIdle)", '"30:00"')])

    fn_group("eval", ["eval(s): s parsed and evaluated in the ad"],
             over("eval(%s)", ['"1 + 2"', '"RequestMemory * 2"', '"TARGET.Memory"',
                               '"1 +"', '""', "3", "undefined", "error", "true",
                               '"Owner"', '"a"', "{1}", '"strcat(Owner, 1)"']) +
             ["eval()", 'eval("1", "2")'],
             [('eval("1 + 2")', "3"), ('eval("RequestMemory * 2")', "4096"),
              ('eval("1 +")', "error"), ("eval(3)", "3"), ("eval(undefined)", "error"),
              ('eval("TARGET.Memory")', "8192"), ("eval(true)", "true")])

    fn_group("unparse", ["unparse(attr): the attribute's expression as text"],
             ["unparse(RequestMemory)", "unparse(Rank)", "unparse(Requirements)",
              "unparse(Nested)", "unparse(MyList)", "unparse(NoSuchAttr)",
              "unparse(1)", 'unparse("Rank")', "unparse()", "unparse(a)",
              "unparse(Ratio)"],
             [("unparse(Rank)", '"TARGET.Memory / 1024"'),
              ("unparse(RequestMemory)", '"2048"'), ("unparse(NoSuchAttr)", '""'),
              ("unparse(1)", "error"), ("unparse(Ratio)", '"7.500000000000000E-01"')])

    fn_group("time", ["time(): the current time as an integer; only its type"
                      " is fixed"],
             [],
             [("isInteger(time())", "true"), ("time() > 1700000000", "true"),
              ("isString(formatTime(0))", "true") if False else
              ("time(1)", "error")])

    fn_group("reltime", ["relTime(n): a relative time, printed"
                         ' relTime("[days+]hh:mm:ss") without leading zero'
                         " fields; as a string without relTime(\"...\")"],
             over("relTime(%s)", ["0", "5", "59", "90", "3661", "90061", "-90",
                                  "1.5", "undefined", "error", "true", "{}",
                                  "KeyboardIdle", "RequestMemory"]) +
             over("%s(relTime(90))", ["isReltime", "isAbstime", "isInteger",
                                     "int", "real", "string", "bool"]) +
             ["relTime(1, 2)", "relTime()", "relTime(relTime(7))"],
             [("relTime(90)", 'relTime("01:30")'), ("relTime(5)", 'relTime("05")'),
              ("relTime(3661)", 'relTime("01:01:01")'),
              ("relTime(90061)", 'relTime("1+01:01:01")'),
              ("relTime(-90)", 'relTime("-01:30")'), ("relTime(1.5)", 'relTime("1.5")'),
              ("string(relTime(90))", '"01:30"'), ("int(relTime(90))", "90"),
              ("isReltime(relTime(1))", "true"), ("relTime(true)", "error"),
              ("relTime(undefined)", "undefined"), ("relTime(1, 2)", "error")])

    fn_group("abstime", ["absTime(seconds, offset): an absolute time in the"
                         " zone offset seconds east of UTC, printed"
                         ' absTime("yyyy-mm-ddThh:mm:ss+hh:mm") (an offset of'
                         " 0 prints as -00:00)"],
             over("absTime(%s, 0)", ["0", "86400", "1700000000", "1.5", "undefined",
                                     "error", "true", "{}", "relTime(60)"]) +
             over("absTime(1700000000, %s)", ["3600", "-18000", "1.5", "-1",
                                              "relTime(7200)", '"x"', "undefined"]) +
             over("%s(absTime(0, 0))", ["isAbstime", "isReltime", "int", "real",
                                        "string", "bool"]) +
             ["absTime(1, 2, 3)"],
             [("absTime(0, 0)", 'absTime("1970-01-01T00:00:00-00:00")'),
              ("absTime(1700000000, 3600)", 'absTime("2023-11-14T23:13:20+01:00")'),
              ("string(absTime(86400, -18000))", '"1970-01-01T19:00:00-05:00"'),
              ("isAbstime(absTime(0, 0))", "true"), ("int(absTime(86400, 3600))", "86400"),
              ("absTime(0, -1)", "error"), ("absTime(undefined, 0)", "undefined"),
              ("bool(absTime(0, 0))", "error")])

    fn_group("formattime", ["formatTime(t [, format]): strftime of the time in its"
                            " own zone; a relative time is error"],
             over('formatTime(absTime(%s, 0), "%%Y-%%m-%%d %%H:%%M:%%S")',
                  ["0", "86399", "951782400", "1700000000"]) +
             over('formatTime(absTime(1700000000, %s), "%%H:%%M %%j %%a %%b")',
                  ["0", "3600", "-18000", "43200"]) +
             over("formatTime(%s)", ["relTime(5)", "undefined", "error", '"x"',
                                     "{}"]) +
             ['formatTime(absTime(0, 0), 5)', 'formatTime(absTime(0, 0), undefined)',
              'formatTime(1, "%Y", 3)', "isString(formatTime())"],
             [('formatTime(absTime(0, 0), "%Y-%m-%d %H:%M:%S")', '"1970-01-01 00:00:00"'),
              ('formatTime(absTime(951782400, 0), "%Y-%m-%d")', '"2000-02-29"'),
              ("formatTime(relTime(5))", "error"), ("formatTime(undefined)", "error"),
              ("isString(formatTime())", "true"), ('formatTime(1, "%Y", 3)', "error")])

    fn_group("debug", ["debug(x) is x"],
             over("debug(%s)", SMALL) + ["debug()"],
             [("debug(1 + 1)", "2"), ("debug()", "error")])

    fn_group("unknown", ["functions HTCondor does not have evaluate to error;"
                         " function names are case-insensitive"],
             [],
             [("sprintf(\"%d\", 1)", "error"), ("lowerCase(\"A\")", "error"),
              ("upperCase(\"a\")", "error"), ("noSuchFunction()", "error"),
              ("STRCAT(\"a\", \"b\")", '"ab"'), ("StrCat(\"a\")", '"a"'),
              ("SIZE({1})", "1"), ("IfThenElse(true, 1, 2)", "1"),
              ("isundefined(x)", "true"), ("ISERROR(error)", "true")])


build()
if BAD:
    sys.stderr.write("the model disagrees with HTCondor's value:\n  " +
                     "\n  ".join(BAD) + "\n")
    sys.exit(1)
print("\n".join(OUT))
