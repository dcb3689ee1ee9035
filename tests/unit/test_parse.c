/* test_parse.c - the Python-subset parser: tree shapes (as S-expressions
 * written by hand), precedence, locations, every kind of syntax error with its
 * line:col and message, bounds, and a no-crash sweep over truncated and
 * random inputs (meant to run under SAN=1). */
#include "check.h"

#include <stdarg.h>
#include <stdint.h>

#include "mlcc/support.h"
#include "text/ast.h"

/* ---- a compact dump of the tree ------------------------------------------ */

typedef struct Out { char buf[1 << 16]; size_t n; } Out;

static void put(Out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (o->n < sizeof o->buf) {
    int k = vsnprintf(o->buf + o->n, sizeof o->buf - o->n, fmt, ap);
    if (k > 0) o->n += (size_t)k;
    if (o->n > sizeof o->buf - 1) o->n = sizeof o->buf - 1;
  }
  va_end(ap);
}

static const char *op_name(AstOp op) {
  switch (op) {
  case AST_OP_ADD: return "+";
  case AST_OP_SUB: return "-";
  case AST_OP_MUL: return "*";
  case AST_OP_DIV: return "/";
  case AST_OP_FLOORDIV: return "//";
  case AST_OP_MOD: return "%";
  case AST_OP_POW: return "**";
  case AST_OP_MATMUL: return "@";
  case AST_OP_BITAND: return "&";
  case AST_OP_BITOR: return "|";
  case AST_OP_BITXOR: return "^";
  case AST_OP_LSHIFT: return "<<";
  case AST_OP_RSHIFT: return ">>";
  case AST_OP_NEG: return "neg";
  case AST_OP_POS: return "pos";
  case AST_OP_NOT: return "not";
  case AST_OP_INVERT: return "~";
  case AST_OP_EQ: return "==";
  case AST_OP_NE: return "!=";
  case AST_OP_LT: return "<";
  case AST_OP_LE: return "<=";
  case AST_OP_GT: return ">";
  case AST_OP_GE: return ">=";
  case AST_OP_IN: return "in";
  case AST_OP_NOT_IN: return "not-in";
  case AST_OP_IS: return "is";
  case AST_OP_IS_NOT: return "is-not";
  case AST_OP_AND: return "and";
  case AST_OP_OR: return "or";
  }
  return "?";
}

static void dump(Out *o, const Ast *a);

static void dump_list(Out *o, AstList l) {
  for (int i = 0; i < l.n; i++) {
    put(o, " ");
    dump(o, l.items[i]);
  }
}

static void dump_block(Out *o, AstList l) {
  put(o, " (block");
  dump_list(o, l);
  put(o, ")");
}

static void dump_str(Out *o, const char *s) {
  put(o, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n') put(o, "\\n");
    else if (c == '"' || c == '\\') put(o, "\\%c", c);
    else if (c < 32 || c >= 127) put(o, "\\x%02x", c);
    else put(o, "%c", c);
  }
  put(o, "\"");
}

static void dump(Out *o, const Ast *a) {
  if (!a) {
    put(o, "_");
    return;
  }
  switch (a->kind) {
  case AST_NAME: put(o, "%s", a->name); break;
  case AST_INT: put(o, "%lld", (long long)a->int_val); break;
  case AST_FLOAT: put(o, "%gf", a->float_val); break;
  case AST_STR: dump_str(o, a->str); break;
  case AST_NONE: put(o, "None"); break;
  case AST_TRUE: put(o, "True"); break;
  case AST_FALSE: put(o, "False"); break;
  case AST_ATTR: put(o, "(. "); dump(o, a->value); put(o, " %s)", a->name); break;
  case AST_CALL:
    put(o, "(call ");
    dump(o, a->func);
    dump_list(o, a->items);
    for (int i = 0; i < a->n_kws; i++) {
      put(o, " %s=", a->kws[i].name);
      dump(o, a->kws[i].value);
    }
    put(o, ")");
    break;
  case AST_SUBSCRIPT: put(o, "([] "); dump(o, a->value); put(o, " "); dump(o, a->index); put(o, ")"); break;
  case AST_SLICE:
    put(o, "(: ");
    dump(o, a->lo);
    put(o, " ");
    dump(o, a->hi);
    put(o, " ");
    dump(o, a->step);
    put(o, ")");
    break;
  case AST_TUPLE: put(o, "(tuple"); dump_list(o, a->items); put(o, ")"); break;
  case AST_LIST: put(o, "(list"); dump_list(o, a->items); put(o, ")"); break;
  case AST_DICT:
    put(o, "(dict");
    for (int i = 0; i < a->items.n; i++) {
      put(o, " ");
      dump(o, a->items.items[i]);
      put(o, ":");
      dump(o, a->items2.items[i]);
    }
    put(o, ")");
    break;
  case AST_BINOP:
  case AST_COMPARE:
  case AST_BOOLOP:
    put(o, "(%s ", op_name(a->op));
    dump(o, a->lhs);
    put(o, " ");
    dump(o, a->rhs);
    put(o, ")");
    break;
  case AST_UNARY: put(o, "(%s ", op_name(a->op)); dump(o, a->lhs); put(o, ")"); break;
  case AST_IFEXP:
    put(o, "(ifexp ");
    dump(o, a->test);
    put(o, " ");
    dump(o, a->lhs);
    put(o, " ");
    dump(o, a->rhs);
    put(o, ")");
    break;
  case AST_LAMBDA: put(o, "(lambda ("); dump_list(o, a->items); put(o, " ) "); dump(o, a->lhs); put(o, ")"); break;
  case AST_STAR: put(o, "(* "); dump(o, a->lhs); put(o, ")"); break;
  case AST_EXPR_STMT: put(o, "(expr "); dump(o, a->lhs); put(o, ")"); break;
  case AST_ASSIGN:
    put(o, "(= ");
    dump(o, a->target);
    if (a->annot) {
      put(o, " : ");
      dump(o, a->annot);
    }
    put(o, " ");
    dump(o, a->value);
    put(o, ")");
    break;
  case AST_AUGASSIGN:
    put(o, "(%s= ", op_name(a->op));
    dump(o, a->target);
    put(o, " ");
    dump(o, a->value);
    put(o, ")");
    break;
  case AST_FOR:
    put(o, "(for ");
    dump(o, a->target);
    put(o, " ");
    dump(o, a->iter);
    dump_block(o, a->body);
    put(o, ")");
    break;
  case AST_WITH:
    put(o, "(with ");
    dump(o, a->value);
    if (a->target) {
      put(o, " as ");
      dump(o, a->target);
    }
    dump_block(o, a->body);
    put(o, ")");
    break;
  case AST_IF:
    put(o, "(if ");
    dump(o, a->test);
    dump_block(o, a->body);
    if (a->orelse.n) dump_block(o, a->orelse);
    put(o, ")");
    break;
  case AST_RETURN: put(o, "(return "); dump(o, a->value); put(o, ")"); break;
  case AST_PASS: put(o, "pass"); break;
  case AST_FUNCDEF:
    put(o, "(def %s (@", a->name);
    dump_list(o, a->decorators);
    put(o, ") (");
    for (int i = 0; i < a->n_params; i++) {
      put(o, "%s%s", i ? " " : "", a->params[i].name);
      if (a->params[i].annot) {
        put(o, ":");
        dump(o, a->params[i].annot);
      }
      if (a->params[i].dflt) {
        put(o, "=");
        dump(o, a->params[i].dflt);
      }
    }
    put(o, ") -> ");
    dump(o, a->returns);
    dump_block(o, a->body);
    put(o, ")");
    break;
  case AST_CLASSDEF:
    put(o, "(class %s (@", a->name);
    dump_list(o, a->decorators);
    put(o, ") (bases");
    dump_list(o, a->items);
    put(o, ")");
    dump_block(o, a->body);
    put(o, ")");
    break;
  case AST_IMPORT: put(o, "import"); break;
  case AST_ASSERT: put(o, "(assert "); dump(o, a->test); put(o, " "); dump(o, a->value); put(o, ")"); break;
  }
}

/* ---- helpers ----------------------------------------------------------------- */

static Out out;

/* Parse text in a fresh context; returns the dump of all statements separated
 * by "; ", or "ERROR line:col: message". */
static const char *parse_dump_n(const char *text, size_t len) {
  MlcCtx *ctx = mlc_ctx_new();
  AstList l;
  out.n = 0;
  out.buf[0] = 0;
  if (mlc_parse(ctx, "t.py", text, len, &l)) {
    for (int i = 0; i < l.n; i++) {
      if (i) put(&out, "; ");
      dump(&out, l.items[i]);
    }
    if (mlc_has_error(ctx)) put(&out, " [error set on success]");
  } else {
    MlcLoc loc = mlc_error_loc(ctx);
    put(&out, "ERROR %d:%d: %s", loc.line, loc.col, mlc_has_error(ctx) ? mlc_error_msg(ctx) : "(no message)");
  }
  mlc_ctx_free(ctx);
  return out.buf;
}

static const char *parse_dump(const char *text) { return parse_dump_n(text, strlen(text)); }

/* the dump of the value of "x = <expr>" */
static const char *expr_dump(const char *expr) {
  char text[1024];
  snprintf(text, sizeof text, "x = %s\n", expr);
  const char *d = parse_dump(text);
  if (strncmp(d, "(= x ", 5) != 0) return d;
  size_t n = strlen(d);
  memmove(out.buf, d + 5, n - 5);
  out.buf[n - 6] = 0; /* drop the closing paren */
  return out.buf;
}

/* the error of parsing text, as "line:col: message" (or the dump on success) */
static const char *error_of(const char *text) {
  const char *d = parse_dump(text);
  return strncmp(d, "ERROR ", 6) == 0 ? d + 6 : d;
}

/* One context kept open for location checks. */
static MlcCtx *loc_ctx;
static AstList parse_keep(const char *text) {
  if (loc_ctx) mlc_ctx_free(loc_ctx);
  loc_ctx = mlc_ctx_new();
  AstList l = {NULL, 0};
  if (!mlc_parse(loc_ctx, "loc.py", text, strlen(text), &l)) l.n = -1;
  return l;
}
#define AT(a, l, c) ((a) && (a)->loc.line == (l) && (a)->loc.col == (c))

/* ---- expressions ---------------------------------------------------------------- */

static void test_precedence(void) {
  CHECK_STR(expr_dump("a + b * c"), "(+ a (* b c))");
  CHECK_STR(expr_dump("a - b - c"), "(- (- a b) c)");
  CHECK_STR(expr_dump("a ** b ** c"), "(** a (** b c))");
  CHECK_STR(expr_dump("-a ** b"), "(neg (** a b))");
  CHECK_STR(expr_dump("a ** -b"), "(** a (neg b))");
  CHECK_STR(expr_dump("a // b % c @ d / e"), "(/ (@ (% (// a b) c) d) e)");
  CHECK_STR(expr_dump("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  CHECK_STR(expr_dump("a >> 1 << 2"), "(<< (>> a 1) 2)");
  CHECK_STR(expr_dump("not a == b"), "(not (== a b))");
  CHECK_STR(expr_dump("a or b and not c"), "(or a (and b (not c)))");
  CHECK_STR(expr_dump("a and b and c"), "(and (and a b) c)");
  CHECK_STR(expr_dump("a if b or c else d"), "(ifexp (or b c) a d)");
  CHECK_STR(expr_dump("a if b else c if d else e"), "(ifexp b a (ifexp d c e))");
  CHECK_STR(expr_dump("lambda x, y: x + y"), "(lambda ( x y ) (+ x y))");
  CHECK_STR(expr_dump("lambda: 0"), "(lambda ( ) 0)");
  CHECK_STR(expr_dump("~-+a"), "(~ (neg (pos a)))");
  CHECK_STR(expr_dump("(a + b) * c"), "(* (+ a b) c)");
}

static void test_comparisons(void) {
  CHECK_STR(expr_dump("a < b"), "(< a b)");
  CHECK_STR(expr_dump("a + 1 >= b * 2"), "(>= (+ a 1) (* b 2))");
  CHECK_STR(expr_dump("a in b"), "(in a b)");
  CHECK_STR(expr_dump("a not in b"), "(not-in a b)");
  CHECK_STR(expr_dump("a is None"), "(is a None)");
  CHECK_STR(expr_dump("a is not None"), "(is-not a None)");
  CHECK_STR(expr_dump("a != b and c <= d"), "(and (!= a b) (<= c d))");
  CHECK_STR(expr_dump("1 <= vh and vh < 33"), "(and (<= 1 vh) (< vh 33))");
}

static void test_primaries(void) {
  CHECK_STR(expr_dump("T.max(a, b)"), "(call (. T max) a b)");
  CHECK_STR(expr_dump("f(x, *rest, key=1, dtype=\"float32\",)"), "(call f x (* rest) key=1 dtype=\"float32\")");
  CHECK_STR(expr_dump("f()()"), "(call (call f))");
  CHECK_STR(expr_dump("A[i, 0:4]"), "([] A (tuple i (: 0 4 _)))");
  CHECK_STR(expr_dump("A[::2]"), "([] A (: _ _ 2))");
  CHECK_STR(expr_dump("A[1:]"), "([] A (: 1 _ _))");
  CHECK_STR(expr_dump("A[:n, i:j:k]"), "([] A (tuple (: _ n _) (: i j k)))");
  CHECK_STR(expr_dump("A[i,]"), "([] A (tuple i))");
  CHECK_STR(expr_dump("A[i][j]"), "([] ([] A i) j)");
  CHECK_STR(expr_dump("T.Buffer[(128, 128), \"float32\"]"),
            "([] (. T Buffer) (tuple (tuple 128 128) \"float32\"))");
  CHECK_STR(expr_dump("R.nn.relu(x).y"), "(. (call (. (. R nn) relu) x) y)");
}

static void test_displays(void) {
  CHECK_STR(expr_dump("()"), "(tuple)");
  CHECK_STR(expr_dump("(a)"), "a");
  CHECK_STR(expr_dump("(a,)"), "(tuple a)");
  CHECK_STR(expr_dump("(a, b,)"), "(tuple a b)");
  CHECK_STR(expr_dump("a, b"), "(tuple a b)");
  CHECK_STR(expr_dump("[]"), "(list)");
  CHECK_STR(expr_dump("[1, [2, 3], *r,]"), "(list 1 (list 2 3) (* r))");
  CHECK_STR(expr_dump("{}"), "(dict)");
  CHECK_STR(expr_dump("{\"a\": 1, b: (2, 3),}"), "(dict \"a\":1 b:(tuple 2 3))");
  CHECK_STR(expr_dump("(\n  1,\n  2\n)"), "(tuple 1 2)");
}

static void test_literals(void) {
  CHECK_STR(expr_dump("0"), "0");
  CHECK_STR(expr_dump("1_000_000"), "1000000");
  CHECK_STR(expr_dump("0x_ff"), "255");
  CHECK_STR(expr_dump("0o17 + 0b101 + 0XA"), "(+ (+ 15 5) 10)");
  CHECK_STR(expr_dump("00"), "0");
  CHECK_STR(expr_dump("9223372036854775807"), "9223372036854775807");
  CHECK_STR(expr_dump("-9223372036854775808"), "-9223372036854775808");
  CHECK_STR(expr_dump("-5"), "(neg 5)");
  CHECK_STR(expr_dump("1.5"), "1.5f");
  CHECK_STR(expr_dump("1e-5"), "1e-05f");
  CHECK_STR(expr_dump(".5"), "0.5f");
  CHECK_STR(expr_dump("1."), "1f");
  CHECK_STR(expr_dump("1_0.2_5e1_0"), "1.025e+11f");
  CHECK_STR(expr_dump("2E+3"), "2000f");
  CHECK_STR(expr_dump("None, True, False"), "(tuple None True False)");
}

static void test_strings(void) {
  CHECK_STR(expr_dump("'a\\tb\\n\\\\\\'\\\"'"), "\"a\\x09b\\n\\\\'\\\"\"");
  CHECK_STR(expr_dump("\"\\x41\\x7a\""), "\"Az\"");
  CHECK_STR(expr_dump("'\\u00e9'"), "\"\\xc3\\xa9\"");
  CHECK_STR(expr_dump("'\\101\\d'"), "\"A\\\\d\"");
  CHECK_STR(expr_dump("r'\\n\\''"), "\"\\\\n\\\\'\"");
  CHECK_STR(expr_dump("'ab' \"cd\"\n"), "\"abcd\"");
  CHECK_STR(expr_dump("'caf\xc3\xa9'"), "\"caf\\xc3\\xa9\"");
  CHECK_STR(parse_dump("'''doc\nstring \"x\" '' '''\n"), "(expr \"doc\\nstring \\\"x\\\" '' \")");
  CHECK_STR(parse_dump("x = 'a\\\nb'\n"), "(= x \"ab\")");
  CHECK_STR(parse_dump("x = \"\"\n"), "(= x \"\")");
}

/* ---- statements ----------------------------------------------------------------- */

static void test_assignments(void) {
  CHECK_STR(parse_dump("a, b = x, y\n"), "(= (tuple a b) (tuple x y))");
  CHECK_STR(parse_dump("(a, b), [c, *d] = v\n"), "(= (tuple (tuple a b) (list c (* d))) v)");
  CHECK_STR(parse_dump("A[i, j] = A[i, j] + 1\n"), "(= ([] A (tuple i j)) (+ ([] A (tuple i j)) 1))");
  CHECK_STR(parse_dump("lv1: R.Tensor((n, 128), dtype=\"float32\") = R.nn.relu(lv0)\n"),
            "(= lv1 : (call (. R Tensor) (tuple n 128) dtype=\"float32\") (call (. (. R nn) relu) lv0))");
  CHECK_STR(parse_dump("x: int\n"), "(= x : int _)");
  CHECK_STR(parse_dump("x += 1\ny //= 2\nz **= 3\nw >>= k\n"), "(+= x 1); (//= y 2); (**= z 3); (>>= w k)");
  CHECK_STR(parse_dump("a.b = 1; c = 2;\n"), "(= (. a b) 1); (= c 2)");
  CHECK_STR(parse_dump("f(x)\n"), "(expr (call f x))");
}

static void test_compound(void) {
  CHECK_STR(parse_dump("for i, j in T.grid(1, 128):\n    pass\n"),
            "(for (tuple i j) (call (. T grid) 1 128) (block pass))");
  CHECK_STR(parse_dump("with T.block(\"Y\"):\n    x = 1\n    y = 2\n"),
            "(with (call (. T block) \"Y\") (block (= x 1) (= y 2)))");
  CHECK_STR(parse_dump("with a as (b, c), d:\n    pass\n"),
            "(with a as (tuple b c) (block (with d (block pass))))");
  CHECK_STR(parse_dump("if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    pass\nelse:\n    x = 3\n"),
            "(if a (block (= x 1)) (block (if b (block (= x 2)) (block (if c (block pass) (block (= x 3)))))))");
  CHECK_STR(parse_dump("if a: x = 1; y = 2\nelse: pass\n"), "(if a (block (= x 1) (= y 2)) (block pass))");
  CHECK_STR(parse_dump("def f(): return\n"), "(def f (@) () -> _ (block (return _)))");
  CHECK_STR(parse_dump("def f():\n    return a, b\n"), "(def f (@) () -> _ (block (return (tuple a b))))");
  CHECK_STR(parse_dump("assert x > 0, \"msg\"\nassert y\n"), "(assert (> x 0) \"msg\"); (assert y _)");
  CHECK_STR(parse_dump("import tvm\nfrom tvm.script import tir as T, relax as R\nfrom . import (a, b as c,)\n"
                       "import a.b as c, d\nfrom ..x import *\n"),
            "import; import; import; import; import");
}

static void test_defs(void) {
  CHECK_STR(parse_dump("@T.prim_func\ndef f(A: T.Buffer((128,), \"float32\"), n: T.int32 = 4) -> None:\n    pass\n"),
            "(def f (@ (. T prim_func)) (A:(call (. T Buffer) (tuple 128) \"float32\") n:(. T int32)=4) -> None "
            "(block pass))");
  CHECK_STR(parse_dump("@R.function(pure=False)\n@other\ndef main(x, y=1,):\n    return x\n"),
            "(def main (@ (call (. R function) pure=False) other) (x y=1) -> _ (block (return x)))");
  CHECK_STR(parse_dump("@I.ir_module\nclass Module:\n    @T.prim_func\n    def f():\n        pass\n"),
            "(class Module (@ (. I ir_module)) (bases) (block (def f (@ (. T prim_func)) () -> _ (block pass))))");
  CHECK_STR(parse_dump("class A(B, C): pass\n"), "(class A (@) (bases B C) (block pass))");
  CHECK_STR(parse_dump("class A(): pass\n"), "(class A (@) (bases) (block pass))");
}

static void test_layout(void) {
  /* comments, blank lines, CRLF, continuation, tabs, no final newline */
  CHECK_STR(parse_dump("# c\n\n  # indented comment\nx = 1  # tail\n\n\n"), "(= x 1)");
  CHECK_STR(parse_dump("if a:\r\n    x = 1\r\n\r\ny = 2\r\n"), "(if a (block (= x 1))); (= y 2)");
  CHECK_STR(parse_dump("x = 1 + \\\n    2\n"), "(= x (+ 1 2))");
  CHECK_STR(parse_dump("x = [1,\n# comment\n\n     2]\n"), "(= x (list 1 2))");
  CHECK_STR(parse_dump("if a:\n\tx = 1\n\tif b:\n\t\ty = 2\nz = 3"),
            "(if a (block (= x 1) (if b (block (= y 2))))); (= z 3)");
  CHECK_STR(parse_dump("def f():\n    if a:\n        pass\n"), "(def f (@) () -> _ (block (if a (block pass))))");
  CHECK_STR(parse_dump(""), "");
  CHECK_STR(parse_dump("\n\n   \n# only a comment"), "");
  CHECK_STR(parse_dump("pass\n\f\n"), "pass");
  CHECK_STR(parse_dump("\xEF\xBB\xBFx = 1\n"), "(= x 1)");
}

/* the module of the 2022 course, as written there */
static const char *mlp_2022 =
    "import tvm\n"
    "from tvm.script import tir as T\n"
    "from tvm.script import relax as R\n"
    "\n"
    "@tvm.script.ir_module\n"
    "class MyModule:\n"
    "    @T.prim_func\n"
    "    def relu0(X: T.Buffer[(1, 128), \"float32\"],\n"
    "              Y: T.Buffer[(1, 128), \"float32\"]):\n"
    "        # function attr dict\n"
    "        T.func_attr({\"global_symbol\": \"relu0\", \"tir.noalias\": True})\n"
    "        for i, j in T.grid(1, 128):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))\n"
    "\n"
    "    @R.function\n"
    "    def main(x: Tensor((1, 784), \"float32\"),\n"
    "             w0: Tensor((128, 784), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            lv0 = R.call_tir(relu0, (x, w0), (1, 128), dtype=\"float32\")\n"
    "            R.output(lv0)\n"
    "        return lv0\n";

static void test_tvmscript_module(void) {
  AstList l = parse_keep(mlp_2022);
  CHECK(l.n == 4);
  if (l.n != 4) return;
  CHECK(l.items[0]->kind == AST_IMPORT && AT(l.items[0], 1, 1));
  CHECK(l.items[2]->kind == AST_IMPORT && AT(l.items[2], 3, 1));
  Ast *cls = l.items[3];
  CHECK(cls->kind == AST_CLASSDEF && strcmp(cls->name, "MyModule") == 0 && AT(cls, 6, 1));
  CHECK(cls->decorators.n == 1 && AT(cls->decorators.items[0], 5, 2));
  CHECK(cls->body.n == 2);
  if (cls->body.n != 2) return;
  Ast *relu = cls->body.items[0], *main_fn = cls->body.items[1];
  CHECK(relu->kind == AST_FUNCDEF && AT(relu, 8, 5) && relu->n_params == 2);
  CHECK(relu->n_params == 2 && relu->params[1].loc.line == 9 && relu->params[1].loc.col == 15);
  CHECK(relu->body.n == 2);
  Ast *loop = relu->body.n == 2 ? relu->body.items[1] : NULL;
  CHECK(loop && loop->kind == AST_FOR && AT(loop, 12, 9) && AT(loop->target, 12, 13));
  Ast *blk = loop ? loop->body.items[0] : NULL;
  CHECK(blk && blk->kind == AST_WITH && AT(blk, 13, 13) && blk->body.n == 2);
  Ast *store = blk && blk->body.n == 2 ? blk->body.items[1] : NULL;
  CHECK(store && store->kind == AST_ASSIGN && AT(store, 15, 17) && store->target->kind == AST_SUBSCRIPT);
  CHECK(store && AT(store->value, 15, 29) && store->value->kind == AST_CALL);
  CHECK(main_fn->kind == AST_FUNCDEF && strcmp(main_fn->name, "main") == 0 && main_fn->body.n == 2);
  CHECK(main_fn->decorators.n == 1 && AT(main_fn->decorators.items[0], 17, 6));
  Ast *ret = main_fn->body.n == 2 ? main_fn->body.items[1] : NULL;
  CHECK(ret && ret->kind == AST_RETURN && AT(ret, 23, 9) && AT(ret->value, 23, 16));
}

static void test_locations(void) {
  AstList l = parse_keep("x = (a + b) * c\ny = f(a).b[c]\nz = -a - b\n  # c\nw = a if b else c\nv = {1: 2}\n");
  CHECK(l.n == 5);
  if (l.n != 5) return;
  Ast *m = l.items[0]->value;
  CHECK(m->kind == AST_BINOP && AT(m, 1, 5) && AT(m->lhs, 1, 6) && AT(m->lhs->rhs, 1, 10) && AT(m->rhs, 1, 15));
  Ast *s = l.items[1]->value;
  CHECK(s->kind == AST_SUBSCRIPT && AT(s, 2, 5) && AT(s->value, 2, 5) && AT(s->index, 2, 12));
  CHECK(AT(s->value->value, 2, 5) && AT(s->value->value->items.items[0], 2, 7));
  Ast *u = l.items[2]->value;
  CHECK(u->kind == AST_BINOP && AT(u, 3, 5) && u->lhs->kind == AST_UNARY && AT(u->lhs->lhs, 3, 6));
  Ast *w = l.items[3]->value;
  CHECK(AT(l.items[3], 5, 1) && w->kind == AST_IFEXP && AT(w, 5, 5) && AT(w->test, 5, 10) && AT(w->rhs, 5, 17));
  CHECK(AT(l.items[4]->value, 6, 5) && AT(l.items[4]->value->items.items[0], 6, 6));
  CHECK(l.items[0]->loc.file && strcmp(l.items[0]->loc.file, "loc.py") == 0);
  CHECK(l.items[0]->loc.file == mlc_intern(loc_ctx, "loc.py"));
  /* keywords and tuples without brackets */
  l = parse_keep("f(a, key = 2)\nb, c = 1, 2\n");
  CHECK(l.n == 2 && l.items[0]->lhs->n_kws == 1 && l.items[0]->lhs->kws[0].loc.col == 6);
  CHECK(l.n == 2 && AT(l.items[1]->target, 2, 1) && AT(l.items[1]->value, 2, 8));
  /* a docstring after CRLF lines, and columns count bytes */
  l = parse_keep("x = 1\r\n\"\"\"doc\r\nmore\"\"\"\r\ny = '\xc3\xa9' + z\n");
  CHECK(l.n == 3 && AT(l.items[1], 2, 1) && AT(l.items[2], 4, 1) && AT(l.items[2]->value->rhs, 4, 12));
  CHECK(l.n == 3 && strcmp(l.items[1]->lhs->str, "doc\nmore") == 0);
}

/* ---- errors ---------------------------------------------------------------------- */

static void test_lexical_errors(void) {
  CHECK_STR(error_of("x = 'abc\n"), "1:5: unterminated string literal");
  CHECK_STR(error_of("x = 1\ny = \"\"\"abc\n\n"), "2:5: unterminated triple-quoted string literal");
  CHECK_STR(error_of("x = 99999999999999999999\n"), "1:5: integer literal out of range");
  CHECK_STR(error_of("x = 9223372036854775808\n"), "1:5: integer literal out of range");
  CHECK_STR(error_of("x = -9223372036854775808 ** 2\n"), "1:6: integer literal out of range");
  CHECK_STR(error_of("x = 0x\n"), "1:5: invalid hexadecimal literal");
  CHECK_STR(error_of("x = 0b102\n"), "1:5: invalid binary literal");
  CHECK_STR(error_of("x = 1__0\n"), "1:5: invalid decimal literal");
  CHECK_STR(error_of("x = 1e\n"), "1:5: invalid decimal literal");
  CHECK_STR(error_of("x = 12abc\n"), "1:5: invalid decimal literal");
  CHECK_STR(error_of("x = 0777\n"),
            "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
  CHECK_STR(error_of("x = 1j\n"), "1:5: imaginary literals are not supported");
  CHECK_STR(error_of("x = '\\x4'\n"), "1:6: truncated \\x escape: expected 2 hex digits");
  CHECK_STR(error_of("x = '\\0'\n"), "1:6: NUL character in string literal");
  CHECK_STR(error_of("x = 'a\\ud800'\n"), "1:7: escape names an invalid code point 0xD800");
  CHECK_STR(error_of("x = b'a'\n"), "1:5: bytes literals are not supported");
  CHECK_STR(error_of("x = f'{a}'\n"), "1:5: f-strings are not supported");
  CHECK_STR(error_of("x = a $ b\n"), "1:7: unexpected character '$'");
  CHECK_STR(error_of("x = a ! b\n"), "1:7: unexpected character '!'");
  CHECK_STR(error_of("x = a \x01\n"), "1:7: unexpected character: control byte 0x01");
  CHECK_STR(error_of("x = 1\ny = \xc3\xa9\n"),
            "2:5: unexpected character: byte 0xC3 (non-ASCII outside a string or comment)");
  CHECK_STR(error_of("x = a \\ b\n"), "1:8: unexpected character after line continuation character");
  CHECK_STR(error_of("x = a \\"), "1:7: unexpected end of file after line continuation character");
  CHECK_STR(error_of("x = a\rb\n"), "1:6: unexpected character: carriage return not followed by a line feed");
  CHECK_STR(parse_dump_n("x = 1\n# c\0mment\n", 16),
            "ERROR 2:4: unexpected character: NUL byte in a comment (is this a binary file?)");
  CHECK_STR(parse_dump_n("x = 1\ny = \0\n", 11), "ERROR 2:5: unexpected character: NUL byte (is this a binary file?)");
  CHECK_STR(parse_dump_n("x = 'a\0'\n", 9), "ERROR 1:7: NUL byte in string literal");
}

static void test_layout_errors(void) {
  CHECK_STR(error_of("  x = 1\n"), "1:3: unexpected indent");
  CHECK_STR(error_of("if a:\n    x = 1\n        y = 2\n"), "3:9: unexpected indent");
  CHECK_STR(error_of("if a:\n    x = 1\n  y = 2\n"), "3:3: unindent does not match any outer indentation level");
  CHECK_STR(error_of("if a:\nx = 1\n"), "2:1: expected an indented block after 'if' statement on line 1, found name 'x'");
  CHECK_STR(error_of("def f():\n"),
            "2:1: expected an indented block after function definition on line 1, found end of file");
  CHECK_STR(error_of("for i in x:\n    pass\nelse:\n    pass\n"), "3:1: 'else' after a for loop is not supported");
  CHECK_STR(error_of("if a:\n        x = 1\n\ty = 2\n"), "3:2: inconsistent use of tabs and spaces in indentation");
  CHECK_STR(error_of("x = (1,\n     2\n"), "1:5: '(' was never closed");
  CHECK_STR(error_of("x = f(a, [1"), "1:6: '(' was never closed");
  /* a syntax error inside a bracket that is never closed names the bracket */
  CHECK_STR(error_of("x = f(a b\ny = 2\n"), "1:6: '(' was never closed");
  CHECK_STR(error_of("x = [f(a b), 1\n"), "1:5: '[' was never closed");
  CHECK_STR(error_of("x = [f(a b), 1]\ny = (\n"), "1:10: expected ',' or ')' after an argument, found name 'b'");
  CHECK_STR(error_of("f(a, [1, 2)\n"), "1:11: closing ')' does not match opening '[' on line 1");
  CHECK_STR(error_of("x = 1)\n"), "1:6: invalid syntax: unexpected ')' (no bracket is open)");
}

static void test_syntax_errors(void) {
  CHECK_STR(error_of("for i in range(3)\n    pass\n"), "1:18: expected ':' after for header, found newline");
  CHECK_STR(error_of("for i in range(3)"), "1:18: expected ':' after for header, found end of file");
  CHECK_STR(error_of("for i range(3):\n"), "1:7: expected 'in' after for target, found name 'range'");
  CHECK_STR(error_of("if a\n"), "1:5: expected ':' after if condition, found newline");
  CHECK_STR(error_of("f(1 +)\n"), "1:6: invalid syntax: unexpected ')', expected an expression");
  CHECK_STR(error_of("x = \n"), "1:5: invalid syntax: unexpected newline, expected an expression");
  CHECK_STR(error_of("x = (a b)\n"), "1:8: expected ')' to close the parenthesized expression, found name 'b'");
  CHECK_STR(error_of("x = [a b]\n"), "1:8: expected ',' or ']' after a list item, found name 'b'");
  CHECK_STR(error_of("f(a b)\n"), "1:5: expected ',' or ')' after an argument, found name 'b'");
  CHECK_STR(error_of("x = 1 2\n"), "1:7: expected newline or ';' after a statement, found number '2'");
  CHECK_STR(error_of("a < b < c\n"),
            "1:7: chained comparisons like 'a < b < c' are not supported; write 'a < b and b < c'");
  CHECK_STR(error_of("f(x) = 1\n"), "1:1: cannot assign to a function call");
  CHECK_STR(error_of("a, 1 = x\n"), "1:4: cannot assign to a literal");
  CHECK_STR(error_of("a = b = c\n"), "1:7: chained assignment (a = b = c) is not supported");
  CHECK_STR(error_of("(a, b): int = 1\n"), "1:1: only a single name, attribute or subscript can be annotated");
  CHECK_STR(error_of("f(x) += 1\n"), "1:1: a function call is an illegal target for augmented assignment");
  CHECK_STR(error_of("f(a=1, a=2)\n"), "1:8: keyword argument repeated: a");
  CHECK_STR(error_of("f(a=1, 2)\n"), "1:8: positional argument follows keyword argument");
  CHECK_STR(error_of("f(a + 1=2)\n"), "1:3: expression cannot contain assignment, perhaps you meant \"==\"?");
  CHECK_STR(error_of("def f(a=1, b): pass\n"), "1:12: parameter without a default follows parameter with a default");
  CHECK_STR(error_of("def f(a, a): pass\n"), "1:10: duplicate parameter 'a' in function definition");
  CHECK_STR(error_of("def f(*args): pass\n"), "1:7: '*' in a parameter list is not supported");
  CHECK_STR(error_of("def (x): pass\n"), "1:5: expected a function name after 'def', found '('");
  CHECK_STR(error_of("@dec\nx = 1\n"), "2:1: expected 'def' or 'class' after a decorator, found name 'x'");
  CHECK_STR(error_of("x = [i for i in y]\n"), "1:8: comprehensions are not supported");
  CHECK_STR(error_of("x = {1, 2}\n"), "1:5: set displays are not supported");
  CHECK_STR(error_of("while x:\n    pass\n"), "1:1: 'while' statements are not supported");
  CHECK_STR(error_of("x = a.if\n"), "1:7: expected an attribute name after '.', found 'if'");
  CHECK_STR(error_of("x = a if b\n"),
            "1:11: expected 'else' after the condition of a conditional expression, found newline");
  CHECK_STR(error_of("*a = x\n"), "1:1: a starred assignment target must be in a list or tuple");
  CHECK_STR(error_of("x = (*a)\n"), "1:6: cannot use starred expression here");
  CHECK_STR(error_of("from import x\n"), "1:6: expected a module name, found 'import'");
  CHECK_STR(error_of("class A:\n    @T.prim_func\n"),
            "3:1: expected 'def' or 'class' after a decorator, found end of file");
  CHECK_STR(error_of("else:\n    pass\n"), "1:1: invalid syntax: unexpected 'else', expected an expression");
  CHECK_STR(error_of("if a: if b: pass\n"), "1:7: invalid syntax: unexpected 'if', expected an expression");
}

/* ---- bounds ------------------------------------------------------------------------ */

/* text of `n` copies of `a`, then `mid`, then `n` copies of `b` */
static char *repeat3(const char *a, int n, const char *mid, const char *b) {
  size_t la = strlen(a), lm = strlen(mid), lb = strlen(b);
  char *s = malloc(la * (size_t)n + lm + lb * (size_t)n + 1), *q = s;
  for (int i = 0; i < n; i++, q += la) memcpy(q, a, la);
  memcpy(q, mid, lm);
  q += lm;
  for (int i = 0; i < n; i++, q += lb) memcpy(q, b, lb);
  *q = 0;
  return s;
}

static void test_bounds(void) {
  /* 200 brackets are accepted, 201 refused */
  char *s = repeat3("(", 200, "1", ")");
  char *t = malloc(strlen(s) + 8);
  sprintf(t, "x = %s\n", s);
  CHECK_STR(parse_dump(t), "(= x 1)");
  free(s);
  free(t);
  s = repeat3("[", 201, "1", "]");
  CHECK_STR(error_of(s), "1:201: too many nested brackets (more than 200)");
  free(s);
  s = repeat3("-", 100000, "x", "");
  CHECK_STR(error_of(s), "1:201: expression nested too deeply (more than 200 levels)");
  free(s);
  s = repeat3("not ", 300, "x", "");
  CHECK(strstr(error_of(s), "expression nested too deeply"));
  free(s);
  s = repeat3("2**", 300, "x", "");
  CHECK(strstr(error_of(s), "expression nested too deeply"));
  free(s);
  s = repeat3("a if b else ", 300, "x", "");
  CHECK(strstr(error_of(s), "expression nested too deeply"));
  free(s);
  s = repeat3("a + ", 999, "x", "\n");
  CHECK(strncmp(parse_dump(s), "(expr (+ (+ (+", 14) == 0);
  free(s);
  s = repeat3("a + ", 100000, "x", "");
  CHECK_STR(error_of(s), "1:1: expression too deep (more than 1000 levels)");
  free(s);
  s = repeat3("a.", 100000, "b", "");
  CHECK_STR(error_of(s), "1:1: expression too deep (more than 1000 levels)");
  free(s);
  /* blocks: 200 levels of nested ifs are accepted, 201 refused */
  MlcStrBuf sb = {0};
  for (int i = 0; i < 201; i++) {
    for (int j = 0; j < i; j++) mlc_sb_putc(&sb, ' ');
    mlc_sb_puts(&sb, "if a:\n");
  }
  for (int j = 0; j < 201; j++) mlc_sb_putc(&sb, ' ');
  mlc_sb_puts(&sb, "pass\n");
  CHECK(strstr(error_of(mlc_sb_cstr(&sb)), "blocks nested too deeply (more than 200 levels)"));
  sb.len = 0;
  for (int i = 0; i < 200; i++) {
    for (int j = 0; j < i; j++) mlc_sb_putc(&sb, ' ');
    mlc_sb_puts(&sb, "if a:\n");
  }
  for (int j = 0; j < 200; j++) mlc_sb_putc(&sb, ' ');
  mlc_sb_puts(&sb, "pass\n");
  CHECK(strncmp(parse_dump(mlc_sb_cstr(&sb)), "(if a (block (if a", 18) == 0);
  /* long elif chains nest in the tree, so they count too */
  sb.len = 0;
  mlc_sb_puts(&sb, "if a:\n    pass\n");
  for (int i = 0; i < 300; i++) mlc_sb_puts(&sb, "elif b:\n    pass\n");
  CHECK(strstr(error_of(mlc_sb_cstr(&sb)), "blocks nested too deeply"));
  mlc_vec_free(&sb);
  /* over 64 MiB is refused before a byte is read */
  MlcCtx *ctx = mlc_ctx_new();
  AstList l;
  CHECK(!mlc_parse(ctx, "big.py", "x = 1\n", ((size_t)64 << 20) + 1, &l));
  CHECK(strstr(mlc_error_msg(ctx), "64 MiB") != NULL);
  mlc_ctx_free(ctx);
  /* a NULL text of length 0 is an empty file */
  ctx = mlc_ctx_new();
  CHECK(mlc_parse(ctx, NULL, NULL, 0, &l) && l.n == 0);
  mlc_ctx_free(ctx);
}

/* ---- no crash on any input --------------------------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

/* parse into its own context: true when the outcome is consistent (success
 * without error, or failure with a located message) */
static bool parse_consistent(const char *text, size_t len) {
  MlcCtx *ctx = mlc_ctx_new();
  AstList l;
  bool ok = mlc_parse(ctx, "fuzz.py", text, len, &l);
  bool good = ok ? !mlc_has_error(ctx) : (mlc_has_error(ctx) && mlc_error_loc(ctx).line > 0 &&
                                         mlc_error_loc(ctx).col > 0 && mlc_error_msg(ctx)[0]);
  mlc_ctx_free(ctx);
  return good;
}

static void test_no_crash(void) {
  size_t n = strlen(mlp_2022);
  /* every prefix, copied into an exact-size buffer so a read past `len` is seen by ASan */
  for (size_t k = 0; k <= n; k++) {
    char *buf = malloc(k ? k : 1);
    memcpy(buf, mlp_2022, k);
    CHECK(parse_consistent(buf, k));
    free(buf);
  }
  /* random bytes, random bytes from the program's alphabet, and mutations of it */
  static const char alphabet[] = "()[]{}:,.=+-*/%<>!@&|^~\\'\"#\n\r\t 0123456789abcxyzeEjJrbf_\x00\xc3\xff";
  for (int iter = 0; iter < 3000; iter++) {
    size_t len = next_rand() % 200;
    char *buf = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++) {
      uint32_t r = next_rand();
      buf[i] = iter % 3 == 0 ? (char)(r & 0xff) : alphabet[r % (sizeof alphabet - 1)];
    }
    CHECK(parse_consistent(buf, len));
    free(buf);
  }
  for (int iter = 0; iter < 2000; iter++) {
    char *buf = malloc(n);
    memcpy(buf, mlp_2022, n);
    for (int m = 0; m < 3; m++) buf[next_rand() % n] = alphabet[next_rand() % (sizeof alphabet - 1)];
    CHECK(parse_consistent(buf, n));
    free(buf);
  }
}

int main(void) {
  RUN(test_precedence);
  RUN(test_comparisons);
  RUN(test_primaries);
  RUN(test_displays);
  RUN(test_literals);
  RUN(test_strings);
  RUN(test_assignments);
  RUN(test_compound);
  RUN(test_defs);
  RUN(test_layout);
  RUN(test_tvmscript_module);
  RUN(test_locations);
  RUN(test_lexical_errors);
  RUN(test_layout_errors);
  RUN(test_syntax_errors);
  RUN(test_bounds);
  RUN(test_no_crash);
  if (loc_ctx) mlc_ctx_free(loc_ctx);
  return CHECK_DONE();
}
