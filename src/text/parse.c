/* parse.c - the Python subset TVMScript is written in, parsed into the Ast
 * of ast.h by recursive descent over the token stream of lex.c.
 *
 * Python's precedence levels each have a function (test, or, and, not,
 * comparison), except the six left-associative binary levels, which one
 * precedence-climbing loop handles from a table; a left-associative chain is
 * a loop, never recursion.  What still recurses is bounded: brackets and
 * blocks by the lexer and parse_block, unary operators, `**`, `not`, lambda
 * and conditional expressions by a nesting counter, and every expression
 * tree by its depth, so the readers that walk the tree recursively are safe
 * on any input.
 *
 * Each error is recorded once, at the token where parsing cannot go on, and
 * says what was expected and what was found; every function returns NULL or
 * false after it.  Constructs of Python the tree cannot hold (comprehensions,
 * while, try, star parameters, ...) are refused by name rather than misread.
 *
 * Locations: a node's first character, so a binary operation points at its
 * left operand and `(a + b) * c` at the parenthesis.  A def or class points at
 * its keyword (its decorators each have their own).  A class's bases are kept
 * like call arguments, in items and kws. */
#include "text/ast.h"
#include "text/lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT_BYTES ((size_t)64 << 20)
/* recursion through unary operators, **, not, lambda and if-else */
#define MAX_NEST MLC_LEX_MAX_DEPTH
/* blocks inside blocks, elif chains and with items counted as nesting */
#define MAX_BLOCKS MLC_LEX_MAX_DEPTH
/* depth of one expression tree, long left-associative chains included */
#define MAX_TREE 1000

typedef struct Parser {
  MlcCtx *ctx;
  MlcLexer lx;
  MlcTok tok;   /* current */
  MlcTok ahead; /* the one after it, when has_ahead */
  bool has_ahead;
  bool failed;
  int nest;     /* see MAX_NEST */
  int blocks;   /* see MAX_BLOCKS */
  int d;        /* tree depth of the expression a parse function returned */
  MlcStrBuf sb; /* string concatenation */
  char desc[96];
} Parser;

typedef Ast *(*ParseFn)(Parser *);

/* lists being built (see grow) */
typedef struct ListB { Ast **items; int n, cap; } ListB;
typedef struct KwB { AstKeyword *items; int n, cap; } KwB;
typedef struct ParamB { AstParam *items; int n, cap; } ParamB;

static Ast *parse_test(Parser *p);
static Ast *parse_binary(Parser *p, int min_prec);
static Ast *parse_factor(Parser *p);
static bool parse_stmt(Parser *p, ListB *out);

static int imax(int a, int b) { return a > b ? a : b; }

/* ---- operator tables ------------------------------------------------------- */

typedef struct OpInfo {
  MlcTokKind tok;
  AstOp op;
  int prec; /* binary operators: higher binds tighter */
} OpInfo;

static const OpInfo binops[] = {
    {TK_PIPE, AST_OP_BITOR, 1},     {TK_CARET, AST_OP_BITXOR, 2},   {TK_AMP, AST_OP_BITAND, 3},
    {TK_LSHIFT, AST_OP_LSHIFT, 4},  {TK_RSHIFT, AST_OP_RSHIFT, 4},  {TK_PLUS, AST_OP_ADD, 5},
    {TK_MINUS, AST_OP_SUB, 5},      {TK_STAR, AST_OP_MUL, 6},       {TK_SLASH, AST_OP_DIV, 6},
    {TK_DSLASH, AST_OP_FLOORDIV, 6}, {TK_PERCENT, AST_OP_MOD, 6},   {TK_AT, AST_OP_MATMUL, 6},
};
static const OpInfo unops[] = {
    {TK_MINUS, AST_OP_NEG, 0}, {TK_PLUS, AST_OP_POS, 0}, {TK_TILDE, AST_OP_INVERT, 0},
};
static const OpInfo augops[] = {
    {TK_PLUS_EQ, AST_OP_ADD, 0},       {TK_MINUS_EQ, AST_OP_SUB, 0},     {TK_STAR_EQ, AST_OP_MUL, 0},
    {TK_SLASH_EQ, AST_OP_DIV, 0},      {TK_DSLASH_EQ, AST_OP_FLOORDIV, 0}, {TK_PERCENT_EQ, AST_OP_MOD, 0},
    {TK_POW_EQ, AST_OP_POW, 0},        {TK_AT_EQ, AST_OP_MATMUL, 0},     {TK_AMP_EQ, AST_OP_BITAND, 0},
    {TK_PIPE_EQ, AST_OP_BITOR, 0},     {TK_CARET_EQ, AST_OP_BITXOR, 0},  {TK_LSHIFT_EQ, AST_OP_LSHIFT, 0},
    {TK_RSHIFT_EQ, AST_OP_RSHIFT, 0},
};
/* single-token comparisons; in, not in, is, is not are keywords */
static const OpInfo cmpops[] = {
    {TK_EQ, AST_OP_EQ, 0}, {TK_NE, AST_OP_NE, 0}, {TK_LT, AST_OP_LT, 0},
    {TK_LE, AST_OP_LE, 0}, {TK_GT, AST_OP_GT, 0}, {TK_GE, AST_OP_GE, 0},
};
#define FIND_OP(table, kind) find_op((table), sizeof(table) / sizeof *(table), (kind))

static const OpInfo *find_op(const OpInfo *t, size_t n, MlcTokKind k) {
  for (size_t i = 0; i < n; i++)
    if (t[i].tok == k) return &t[i];
  return NULL;
}

/* statement keywords of Python whose statements the tree cannot hold */
static const MlcTokKind unsupported_stmts[] = {
    KW_WHILE, KW_TRY, KW_ASYNC, KW_BREAK, KW_CONTINUE, KW_DEL, KW_GLOBAL, KW_NONLOCAL, KW_RAISE,
};

static bool is_unsupported_stmt(MlcTokKind k) {
  for (size_t i = 0; i < sizeof unsupported_stmts / sizeof *unsupported_stmts; i++)
    if (unsupported_stmts[i] == k) return true;
  return false;
}

/* ---- errors and tokens ------------------------------------------------------ */

/* A syntax error inside brackets that are never closed is reported as the
 * unclosed bracket: a missing ')' makes the lines after it look like
 * nonsense, and the bracket is the cause.  Lexes on to the end to learn
 * whether a bracket open at the error is still open there. */
static bool unclosed_instead(Parser *p) {
  MlcLexer *lx = &p->lx;
  int open = p->tok.depth < lx->n_bracket ? p->tok.depth : lx->n_bracket;
  while (open > 0 && !lx->failed) {
    MlcTok t;
    mlc_lex_next(lx, &t);
    if (lx->n_bracket < open) open = lx->n_bracket;
  }
  return open > 0 && lx->unclosed_at_eof;
}

MLC_PRINTF(3, 4)
static void *fail(Parser *p, MlcLoc loc, const char *fmt, ...) {
  if (p->failed) return NULL;
  p->failed = true;
  if (p->tok.kind != TK_ERROR && p->tok.depth > 0 && unclosed_instead(p)) {
    mlc_error(p->ctx, p->lx.error.loc, "%s", p->lx.error.str);
    return NULL;
  }
  va_list ap;
  va_start(ap, fmt);
  mlc_verror(p->ctx, loc, fmt, ap);
  va_end(ap);
  return NULL;
}

/* The token as a message names it: "name 'x'", "')'", "newline", ... */
static const char *describe(Parser *p, const MlcTok *t) {
  switch (t->kind) {
  case TK_NAME:
    snprintf(p->desc, sizeof p->desc, "name '%.40s'", t->str);
    return p->desc;
  case TK_INT:
  case TK_FLOAT:
    snprintf(p->desc, sizeof p->desc, "number '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text);
    return p->desc;
  case TK_NEWLINE:
  case TK_DEDENT:
    return t->at_eof ? "end of file" : mlc_tok_spelling(t->kind);
  case TK_EOF:
  case TK_INDENT:
  case TK_STR:
  case TK_ERROR:
    return mlc_tok_spelling(t->kind);
  default:
    snprintf(p->desc, sizeof p->desc, "'%s'", mlc_tok_spelling(t->kind));
    return p->desc;
  }
}

static void advance(Parser *p) {
  if (p->tok.kind == TK_ERROR) return;
  if (p->has_ahead) {
    p->tok = p->ahead;
    p->has_ahead = false;
  } else {
    mlc_lex_next(&p->lx, &p->tok);
  }
  if (p->tok.kind == TK_ERROR) fail(p, p->tok.loc, "%s", p->tok.str);
}

/* the token after the current one; a lexical error in it waits until it is current */
static MlcTokKind peek(Parser *p) {
  if (!p->has_ahead) {
    mlc_lex_next(&p->lx, &p->ahead);
    p->has_ahead = true;
  }
  return p->ahead.kind;
}

static bool at(const Parser *p, MlcTokKind k) { return p->tok.kind == k; }

static bool accept(Parser *p, MlcTokKind k) {
  if (!at(p, k)) return false;
  advance(p);
  return true;
}

static bool expect(Parser *p, MlcTokKind k, const char *where) {
  if (accept(p, k)) return true;
  fail(p, p->tok.loc, "expected '%s' %s, found %s", mlc_tok_spelling(k), where, describe(p, &p->tok));
  return false;
}

/* `what` is e.g. "a function name after 'def'" */
static const char *expect_name(Parser *p, const char *what) {
  if (!at(p, TK_NAME)) return fail(p, p->tok.loc, "expected %s, found %s", what, describe(p, &p->tok));
  const char *s = p->tok.str;
  advance(p);
  return s;
}

/* ',' or the closing bracket after an item of a list */
static bool expect_close(Parser *p, MlcTokKind close, const char *what) {
  if (accept(p, close)) return true;
  fail(p, p->tok.loc, "expected ',' or '%s' after %s, found %s", mlc_tok_spelling(close), what,
       describe(p, &p->tok));
  return false;
}

static bool starts_expr(MlcTokKind k) {
  switch (k) {
  case TK_NAME: case TK_INT: case TK_FLOAT: case TK_STR: case TK_LPAREN: case TK_LBRACK:
  case TK_LBRACE: case TK_MINUS: case TK_PLUS: case TK_TILDE: case TK_STAR: case KW_NOT:
  case KW_LAMBDA: case KW_NONE: case KW_TRUE: case KW_FALSE:
    return true;
  default:
    return false;
  }
}

/* ---- bounds ----------------------------------------------------------------- */

/* loc: the operator or keyword that nests */
static bool nest_in(Parser *p, MlcLoc loc) {
  if (p->nest >= MAX_NEST) {
    fail(p, loc, "expression nested too deeply (more than %d levels)", MAX_NEST);
    return false;
  }
  p->nest++;
  return true;
}

static bool blocks_in(Parser *p, int n) {
  if (p->blocks + n > MAX_BLOCKS) {
    fail(p, p->tok.loc, "blocks nested too deeply (more than %d levels)", MAX_BLOCKS);
    return false;
  }
  p->blocks += n;
  return true;
}

/* a finished expression node of tree depth d */
static Ast *sized(Parser *p, Ast *a, int d) {
  if (d > MAX_TREE) return fail(p, a->loc, "expression too deep (more than %d levels)", MAX_TREE);
  p->d = d;
  return a;
}

/* ---- nodes and lists in the arena ------------------------------------------ */

static Ast *node(Parser *p, AstKind kind, MlcLoc loc) {
  Ast *a = mlc_arena_alloc(&p->ctx->arena, sizeof *a);
  a->kind = kind;
  a->loc = loc;
  return a;
}

static Ast *pair(Parser *p, AstKind kind, AstOp op, MlcLoc loc, Ast *lhs, Ast *rhs) {
  Ast *a = node(p, kind, loc);
  a->op = op;
  a->lhs = lhs;
  a->rhs = rhs;
  return a;
}

/* Lists grow by doubling inside the arena: no malloc'd memory to release on
 * the many error paths, at the cost of at most twice the final size. */
static void *grow(Parser *p, void *data, int n, int *cap, size_t elem) {
  if (n < *cap) return data;
  int ncap = *cap ? *cap * 2 : 4;
  void *nd = mlc_arena_array(&p->ctx->arena, (size_t)ncap, elem);
  if (n) memcpy(nd, data, (size_t)n * elem);
  *cap = ncap;
  return nd;
}

static void list_push(Parser *p, ListB *l, Ast *a) {
  l->items = grow(p, l->items, l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = a;
}
static AstList list_done(const ListB *l) { return (AstList){l->items, l->n}; }

static AstList list_of_one(Parser *p, Ast *a) {
  Ast **items = mlc_arena_array(&p->ctx->arena, 1, sizeof *items);
  items[0] = a;
  return (AstList){items, 1};
}

typedef struct NameAt { const char *name; int i; } NameAt;

static int cmp_name_at(const void *x, const void *y) {
  const NameAt *a = x, *b = y;
  uintptr_t pa = (uintptr_t)a->name, pb = (uintptr_t)b->name;
  if (pa != pb) return pa < pb ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Position of the first name that repeats an earlier one, -1 when all differ.
 * Sorting keeps this n log n for the longest argument lists. */
static int first_repeat(NameAt *names, int n) {
  if (n < 2) return -1;
  qsort(names, (size_t)n, sizeof *names, cmp_name_at);
  int best = -1;
  for (int j = 1; j < n; j++)
    if (names[j].name == names[j - 1].name && (best < 0 || names[j].i < best)) best = names[j].i;
  return best;
}

static NameAt *names_array(Parser *p, int n) {
  return mlc_arena_array(&p->ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(NameAt));
}

/* ---- atoms -------------------------------------------------------------------- */

/* adjacent string literals are one string, as in Python */
static Ast *parse_strings(Parser *p) {
  Ast *a = node(p, AST_STR, p->tok.loc);
  a->str = p->tok.str;
  advance(p);
  if (at(p, TK_STR)) {
    p->sb.len = 0;
    mlc_sb_puts(&p->sb, a->str);
    while (at(p, TK_STR)) {
      mlc_sb_puts(&p->sb, p->tok.str);
      advance(p);
    }
    a->str = mlc_intern_n(p->ctx, mlc_sb_cstr(&p->sb), p->sb.len);
  }
  return sized(p, a, 1);
}

static Ast *parse_star_or_test(Parser *p) {
  if (!at(p, TK_STAR)) return parse_test(p);
  Ast *a = node(p, AST_STAR, p->tok.loc);
  advance(p);
  if (!(a->lhs = parse_binary(p, 1))) return NULL;
  return sized(p, a, p->d + 1);
}

static Ast *parse_bitor(Parser *p) { return parse_binary(p, 1); }

static Ast *parse_star_or_bitor(Parser *p) {
  return at(p, TK_STAR) ? parse_star_or_test(p) : parse_bitor(p);
}

/* Items of a display up to its closing bracket; *d gets their deepest tree. */
static bool parse_items(Parser *p, ListB *items, int *d, MlcTokKind close, const char *what) {
  while (!at(p, close)) {
    Ast *it = parse_star_or_test(p);
    if (!it) return false;
    if (at(p, KW_FOR)) {
      fail(p, p->tok.loc, "comprehensions are not supported");
      return false;
    }
    *d = imax(*d, p->d);
    list_push(p, items, it);
    if (!accept(p, TK_COMMA)) break;
  }
  return expect_close(p, close, what);
}

/* ( ), (x), (x,), (x, y, ...) */
static Ast *parse_paren(Parser *p) {
  MlcLoc loc = p->tok.loc;
  advance(p);
  ListB items = {0};
  int d = 0;
  if (!at(p, TK_RPAREN)) {
    Ast *first = parse_star_or_test(p);
    if (!first) return NULL;
    if (at(p, KW_FOR)) return fail(p, p->tok.loc, "comprehensions are not supported");
    if (!at(p, TK_COMMA)) {
      if (first->kind == AST_STAR) return fail(p, first->loc, "cannot use starred expression here");
      if (!expect(p, TK_RPAREN, "to close the parenthesized expression")) return NULL;
      return first; /* p->d is first's */
    }
    d = p->d;
    list_push(p, &items, first);
    advance(p);
  }
  if (!parse_items(p, &items, &d, TK_RPAREN, "a tuple item")) return NULL;
  Ast *t = node(p, AST_TUPLE, loc);
  t->items = list_done(&items);
  return sized(p, t, d + 1);
}

static Ast *parse_list(Parser *p) {
  Ast *l = node(p, AST_LIST, p->tok.loc);
  advance(p);
  ListB items = {0};
  int d = 0;
  if (!parse_items(p, &items, &d, TK_RBRACK, "a list item")) return NULL;
  l->items = list_done(&items);
  return sized(p, l, d + 1);
}

static Ast *parse_dict(Parser *p) {
  Ast *a = node(p, AST_DICT, p->tok.loc);
  advance(p);
  ListB keys = {0}, vals = {0};
  int d = 0;
  while (!at(p, TK_RBRACE)) {
    if (at(p, TK_POW)) return fail(p, p->tok.loc, "'**' in a dict display is not supported");
    Ast *k = parse_test(p);
    if (!k) return NULL;
    d = imax(d, p->d);
    if (!at(p, TK_COLON) && keys.n == 0 && (at(p, TK_COMMA) || at(p, TK_RBRACE)))
      return fail(p, a->loc, "set displays are not supported");
    if (!expect(p, TK_COLON, "after a dict key")) return NULL;
    Ast *v = parse_test(p);
    if (!v) return NULL;
    d = imax(d, p->d);
    if (at(p, KW_FOR)) return fail(p, p->tok.loc, "comprehensions are not supported");
    list_push(p, &keys, k);
    list_push(p, &vals, v);
    if (!accept(p, TK_COMMA)) break;
  }
  if (!expect_close(p, TK_RBRACE, "a dict item")) return NULL;
  a->items = list_done(&keys);
  a->items2 = list_done(&vals);
  return sized(p, a, d + 1);
}

static Ast *parse_atom(Parser *p) {
  static const struct { MlcTokKind tok; AstKind kind; } consts[] = {
      {KW_NONE, AST_NONE}, {KW_TRUE, AST_TRUE}, {KW_FALSE, AST_FALSE}};
  MlcLoc loc = p->tok.loc;
  Ast *a;
  switch (p->tok.kind) {
  case TK_NAME:
    a = node(p, AST_NAME, loc);
    a->name = p->tok.str;
    break;
  case TK_INT:
    if (p->tok.ival > (uint64_t)INT64_MAX) return fail(p, loc, "integer literal out of range");
    a = node(p, AST_INT, loc);
    a->int_val = (int64_t)p->tok.ival;
    break;
  case TK_FLOAT:
    a = node(p, AST_FLOAT, loc);
    a->float_val = p->tok.fval;
    break;
  case TK_STR: return parse_strings(p);
  case TK_LPAREN: return parse_paren(p);
  case TK_LBRACK: return parse_list(p);
  case TK_LBRACE: return parse_dict(p);
  case KW_YIELD:
  case KW_AWAIT:
    return fail(p, loc, "'%s' expressions are not supported", mlc_tok_spelling(p->tok.kind));
  default:
    a = NULL;
    for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
      if (consts[i].tok == p->tok.kind) a = node(p, consts[i].kind, loc);
    if (!a)
      return fail(p, loc, "invalid syntax: unexpected %s, expected an expression", describe(p, &p->tok));
    break;
  }
  advance(p);
  return sized(p, a, 1);
}

/* ---- trailers: calls, subscripts, attributes ------------------------------- */

static bool parse_arg(Parser *p, ListB *items, KwB *kws, int *d) {
  MlcLoc loc = p->tok.loc;
  if (at(p, TK_POW)) {
    fail(p, loc, "'**' arguments are not supported");
    return false;
  }
  if (at(p, TK_NAME) && peek(p) == TK_ASSIGN) {
    AstKeyword kw = {p->tok.str, NULL, loc};
    advance(p);
    advance(p);
    if (!(kw.value = parse_test(p))) return false;
    *d = imax(*d, p->d);
    kws->items = grow(p, kws->items, kws->n, &kws->cap, sizeof *kws->items);
    kws->items[kws->n++] = kw;
    return true;
  }
  bool star = at(p, TK_STAR);
  Ast *v = star ? parse_star_or_test(p) : parse_test(p);
  if (!v) return false;
  if (at(p, TK_ASSIGN)) {
    fail(p, loc, "expression cannot contain assignment, perhaps you meant \"==\"?");
    return false;
  }
  if (at(p, KW_FOR)) {
    fail(p, p->tok.loc, "comprehensions are not supported");
    return false;
  }
  if (kws->n && !star) {
    fail(p, loc, "positional argument follows keyword argument");
    return false;
  }
  *d = imax(*d, p->d);
  list_push(p, items, v);
  return true;
}

/* Arguments after '(' through ')', into c->items and c->kws (calls and class
 * bases); *d gets their deepest tree. */
static bool parse_args(Parser *p, Ast *c, int *d) {
  ListB items = {0};
  KwB kws = {0};
  while (!at(p, TK_RPAREN)) {
    if (!parse_arg(p, &items, &kws, d)) return false;
    if (!accept(p, TK_COMMA)) break;
  }
  if (!expect_close(p, TK_RPAREN, "an argument")) return false;
  NameAt *names = names_array(p, kws.n);
  for (int i = 0; i < kws.n; i++) names[i] = (NameAt){kws.items[i].name, i};
  int rep = first_repeat(names, kws.n);
  if (rep >= 0) {
    fail(p, kws.items[rep].loc, "keyword argument repeated: %s", kws.items[rep].name);
    return false;
  }
  c->items = list_done(&items);
  c->kws = kws.items;
  c->n_kws = kws.n;
  return true;
}

/* one subscript item: an expression or a slice lo:hi[:step] */
static Ast *parse_slice(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *lo = NULL;
  int d = 0;
  if (!at(p, TK_COLON)) {
    lo = parse_test(p);
    if (!lo || !at(p, TK_COLON)) return lo;
    d = p->d;
  }
  advance(p);
  Ast *s = node(p, AST_SLICE, loc);
  s->lo = lo;
  if (!at(p, TK_COLON) && !at(p, TK_COMMA) && !at(p, TK_RBRACK)) {
    if (!(s->hi = parse_test(p))) return NULL;
    d = imax(d, p->d);
  }
  if (accept(p, TK_COLON) && !at(p, TK_COMMA) && !at(p, TK_RBRACK)) {
    if (!(s->step = parse_test(p))) return NULL;
    d = imax(d, p->d);
  }
  return sized(p, s, d + 1);
}

/* after '[': the index (a TUPLE for a, b) through ']' */
static Ast *parse_index(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *first = parse_slice(p);
  if (!first || !at(p, TK_COMMA)) return first;
  ListB items = {0};
  int d = p->d;
  list_push(p, &items, first);
  while (accept(p, TK_COMMA) && !at(p, TK_RBRACK)) {
    Ast *s = parse_slice(p);
    if (!s) return NULL;
    d = imax(d, p->d);
    list_push(p, &items, s);
  }
  Ast *t = node(p, AST_TUPLE, loc);
  t->items = list_done(&items);
  return sized(p, t, d + 1);
}

static Ast *parse_primary(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *a = parse_atom(p);
  while (a) {
    int d = p->d;
    Ast *t;
    if (at(p, TK_LPAREN)) {
      advance(p);
      t = node(p, AST_CALL, loc);
      t->func = a;
      if (!parse_args(p, t, &d)) return NULL;
    } else if (at(p, TK_LBRACK)) {
      advance(p);
      t = node(p, AST_SUBSCRIPT, loc);
      t->value = a;
      if (!(t->index = parse_index(p))) return NULL;
      d = imax(d, p->d);
      if (!expect(p, TK_RBRACK, "to close the subscript")) return NULL;
    } else if (at(p, TK_DOT)) {
      advance(p);
      t = node(p, AST_ATTR, loc);
      t->value = a;
      if (!(t->name = expect_name(p, "an attribute name after '.'"))) return NULL;
    } else {
      break;
    }
    a = sized(p, t, d + 1);
  }
  return a;
}

/* ---- operators ------------------------------------------------------------------ */

static Ast *parse_power(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *base = parse_primary(p);
  if (!base || !at(p, TK_POW)) return base;
  int d = p->d;
  MlcLoc op = p->tok.loc;
  advance(p);
  if (!nest_in(p, op)) return NULL;
  Ast *e = parse_factor(p); /* right-associative, and -x binds inside: 2**-1 */
  p->nest--;
  if (!e) return NULL;
  return sized(p, pair(p, AST_BINOP, AST_OP_POW, loc, base, e), imax(d, p->d) + 1);
}

/* -9223372036854775808 is the one int64 literal that only exists negated.
 * Folded here unless the literal itself takes ** or a trailer first. */
static Ast *int64_min(Parser *p, MlcLoc loc) {
  MlcTokKind next = peek(p);
  if (next == TK_POW || next == TK_DOT || next == TK_LPAREN || next == TK_LBRACK)
    return fail(p, p->tok.loc, "integer literal out of range");
  advance(p);
  Ast *a = node(p, AST_INT, loc);
  a->int_val = INT64_MIN;
  return sized(p, a, 1);
}

static Ast *parse_factor(Parser *p) {
  const OpInfo *u = FIND_OP(unops, p->tok.kind);
  if (!u) return parse_power(p);
  MlcLoc loc = p->tok.loc;
  advance(p);
  if (u->op == AST_OP_NEG && at(p, TK_INT) && p->tok.ival == (UINT64_C(1) << 63)) return int64_min(p, loc);
  if (!nest_in(p, loc)) return NULL;
  Ast *e = parse_factor(p);
  p->nest--;
  if (!e) return NULL;
  return sized(p, pair(p, AST_UNARY, u->op, loc, e, NULL), p->d + 1);
}

/* | ^ & << >> + - * / // % @ by precedence climbing: the right operand of an
 * operator at level k is parsed at level k+1, so each level is left-associative
 * and the recursion is at most as deep as the number of levels. */
static Ast *parse_binary(Parser *p, int min_prec) {
  MlcLoc loc = p->tok.loc;
  Ast *lhs = parse_factor(p);
  while (lhs) {
    const OpInfo *b = FIND_OP(binops, p->tok.kind);
    if (!b || b->prec < min_prec) break;
    int d = p->d;
    advance(p);
    Ast *rhs = parse_binary(p, b->prec + 1);
    if (!rhs) return NULL;
    lhs = sized(p, pair(p, AST_BINOP, b->op, loc, lhs, rhs), imax(d, p->d) + 1);
  }
  return lhs;
}

/* Consume a comparison operator if one is next. */
static bool comparison_op(Parser *p, AstOp *op) {
  const OpInfo *c = FIND_OP(cmpops, p->tok.kind);
  if (c) {
    *op = c->op;
  } else if (at(p, KW_IN)) {
    *op = AST_OP_IN;
  } else if (at(p, KW_IS)) {
    advance(p);
    *op = accept(p, KW_NOT) ? AST_OP_IS_NOT : AST_OP_IS;
    return true;
  } else if (at(p, KW_NOT) && peek(p) == KW_IN) {
    advance(p);
    *op = AST_OP_NOT_IN;
  } else {
    return false;
  }
  advance(p);
  return true;
}

static Ast *parse_comparison(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *lhs = parse_binary(p, 1);
  AstOp op;
  if (!lhs || !comparison_op(p, &op)) return lhs;
  int d = p->d;
  Ast *rhs = parse_binary(p, 1);
  if (!rhs) return NULL;
  MlcLoc second = p->tok.loc;
  AstOp unused;
  if (comparison_op(p, &unused))
    return fail(p, second, "chained comparisons like 'a < b < c' are not supported; write 'a < b and b < c'");
  return sized(p, pair(p, AST_COMPARE, op, loc, lhs, rhs), imax(d, p->d) + 1);
}

static Ast *parse_not(Parser *p) {
  if (!at(p, KW_NOT)) return parse_comparison(p);
  MlcLoc loc = p->tok.loc;
  advance(p);
  if (!nest_in(p, loc)) return NULL;
  Ast *e = parse_not(p);
  p->nest--;
  if (!e) return NULL;
  return sized(p, pair(p, AST_UNARY, AST_OP_NOT, loc, e, NULL), p->d + 1);
}

/* `and` and `or` chains, left-nested */
static Ast *parse_boolop(Parser *p, MlcTokKind kw, AstOp op, ParseFn operand) {
  MlcLoc loc = p->tok.loc;
  Ast *lhs = operand(p);
  while (lhs && at(p, kw)) {
    int d = p->d;
    advance(p);
    Ast *rhs = operand(p);
    if (!rhs) return NULL;
    lhs = sized(p, pair(p, AST_BOOLOP, op, loc, lhs, rhs), imax(d, p->d) + 1);
  }
  return lhs;
}

static Ast *parse_and(Parser *p) { return parse_boolop(p, KW_AND, AST_OP_AND, parse_not); }
static Ast *parse_or(Parser *p) { return parse_boolop(p, KW_OR, AST_OP_OR, parse_and); }

static Ast *parse_lambda(Parser *p) {
  Ast *l = node(p, AST_LAMBDA, p->tok.loc);
  advance(p);
  ListB params = {0};
  while (!at(p, TK_COLON)) {
    MlcLoc loc = p->tok.loc;
    const char *name = expect_name(p, "a lambda parameter name or ':'");
    if (!name) return NULL;
    if (at(p, TK_ASSIGN)) return fail(p, p->tok.loc, "lambda parameter defaults are not supported");
    Ast *n = node(p, AST_NAME, loc);
    n->name = name;
    list_push(p, &params, n);
    if (!accept(p, TK_COMMA)) break;
  }
  NameAt *names = names_array(p, params.n);
  for (int i = 0; i < params.n; i++) names[i] = (NameAt){params.items[i]->name, i};
  int rep = first_repeat(names, params.n);
  if (rep >= 0)
    return fail(p, params.items[rep]->loc, "duplicate parameter '%s' in lambda", params.items[rep]->name);
  if (!expect(p, TK_COLON, "after lambda parameters")) return NULL;
  if (!nest_in(p, p->tok.loc)) return NULL;
  l->lhs = parse_test(p);
  p->nest--;
  if (!l->lhs) return NULL;
  l->items = list_done(&params);
  return sized(p, l, p->d + 1);
}

/* lambda, or `body if test else orelse`, or an or-expression */
static Ast *parse_test(Parser *p) {
  if (at(p, KW_LAMBDA)) return parse_lambda(p);
  MlcLoc loc = p->tok.loc;
  Ast *body = parse_or(p);
  if (!body || !at(p, KW_IF)) return body;
  int d = p->d;
  advance(p);
  Ast *e = node(p, AST_IFEXP, loc);
  e->lhs = body;
  if (!(e->test = parse_or(p))) return NULL;
  d = imax(d, p->d);
  if (!expect(p, KW_ELSE, "after the condition of a conditional expression")) return NULL;
  if (!nest_in(p, p->tok.loc)) return NULL;
  e->rhs = parse_test(p);
  p->nest--;
  if (!e->rhs) return NULL;
  return sized(p, e, imax(d, p->d) + 1);
}

/* item (, item)* [,] without brackets: a TUPLE when there is a comma */
static Ast *parse_testlist(Parser *p, ParseFn item) {
  MlcLoc loc = p->tok.loc;
  Ast *first = item(p);
  if (!first || !at(p, TK_COMMA)) return first;
  ListB items = {0};
  int d = p->d;
  list_push(p, &items, first);
  while (accept(p, TK_COMMA) && starts_expr(p->tok.kind)) {
    Ast *it = item(p);
    if (!it) return NULL;
    d = imax(d, p->d);
    list_push(p, &items, it);
  }
  Ast *t = node(p, AST_TUPLE, loc);
  t->items = list_done(&items);
  return sized(p, t, d + 1);
}

/* ---- assignment targets -------------------------------------------------------- */

static const char *expr_desc(const Ast *a) {
  switch (a->kind) {
  case AST_CALL: return "a function call";
  case AST_INT: case AST_FLOAT: case AST_STR: return "a literal";
  case AST_NONE: return "None";
  case AST_TRUE: return "True";
  case AST_FALSE: return "False";
  case AST_COMPARE: return "a comparison";
  case AST_LAMBDA: return "a lambda";
  case AST_IFEXP: return "a conditional expression";
  case AST_DICT: return "a dict display";
  default: return "an expression";
  }
}

static bool no_bare_star(Parser *p, const Ast *a) {
  if (a->kind != AST_STAR) return true;
  fail(p, a->loc, "cannot use starred expression here");
  return false;
}

static bool is_single_target(const Ast *a) {
  return a->kind == AST_NAME || a->kind == AST_ATTR || a->kind == AST_SUBSCRIPT;
}

/* names, attributes, subscripts, and tuples/lists of them with *rest;
 * recursion follows brackets, which the lexer bounds */
static bool check_target(Parser *p, const Ast *t) {
  switch (t->kind) {
  case AST_NAME: case AST_ATTR: case AST_SUBSCRIPT:
    return true;
  case AST_STAR:
    return check_target(p, t->lhs);
  case AST_TUPLE: case AST_LIST:
    for (int i = 0; i < t->items.n; i++)
      if (!check_target(p, t->items.items[i])) return false;
    return true;
  default:
    fail(p, t->loc, "cannot assign to %s", expr_desc(t));
    return false;
  }
}

static bool check_top_target(Parser *p, const Ast *t) {
  if (t->kind == AST_STAR) {
    fail(p, t->loc, "a starred assignment target must be in a list or tuple");
    return false;
  }
  return check_target(p, t);
}

/* ---- simple statements --------------------------------------------------------- */

static Ast *parse_value(Parser *p) {
  Ast *v = parse_testlist(p, parse_star_or_test);
  return v && no_bare_star(p, v) ? v : NULL;
}

static Ast *parse_expr_stmt(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *lhs = parse_testlist(p, parse_star_or_test);
  if (!lhs) return NULL;
  const OpInfo *aug = FIND_OP(augops, p->tok.kind);
  Ast *s;
  if (at(p, TK_COLON)) {
    if (!is_single_target(lhs))
      return fail(p, loc, "only a single name, attribute or subscript can be annotated");
    advance(p);
    s = node(p, AST_ASSIGN, loc);
    s->target = lhs;
    if (!(s->annot = parse_test(p))) return NULL;
    if (accept(p, TK_ASSIGN) && !(s->value = parse_value(p))) return NULL;
  } else if (aug) {
    if (!is_single_target(lhs))
      return fail(p, loc, "%s is an illegal target for augmented assignment", expr_desc(lhs));
    advance(p);
    s = node(p, AST_AUGASSIGN, loc);
    s->target = lhs;
    s->op = aug->op;
    if (!(s->value = parse_value(p))) return NULL;
  } else if (at(p, TK_ASSIGN)) {
    if (!check_top_target(p, lhs)) return NULL;
    advance(p);
    s = node(p, AST_ASSIGN, loc);
    s->target = lhs;
    if (!(s->value = parse_value(p))) return NULL;
    if (at(p, TK_ASSIGN)) return fail(p, p->tok.loc, "chained assignment (a = b = c) is not supported");
  } else {
    if (!no_bare_star(p, lhs)) return NULL;
    s = node(p, AST_EXPR_STMT, loc);
    s->lhs = lhs;
  }
  return s;
}

static bool parse_dotted_name(Parser *p) {
  if (!expect_name(p, "a module name")) return false;
  while (accept(p, TK_DOT))
    if (!expect_name(p, "a name after '.'")) return false;
  return true;
}

/* import a.b [as c], ... -- checked, kept only as a located node */
static Ast *parse_import(Parser *p) {
  Ast *s = node(p, AST_IMPORT, p->tok.loc);
  advance(p);
  do {
    if (!parse_dotted_name(p)) return NULL;
    if (accept(p, KW_AS) && !expect_name(p, "a name after 'as'")) return NULL;
  } while (accept(p, TK_COMMA));
  return s;
}

/* from [.]*a.b import (* | x [as y], ... | (x [as y], ...)) */
static Ast *parse_from(Parser *p) {
  Ast *s = node(p, AST_IMPORT, p->tok.loc);
  advance(p);
  int dots = 0;
  while (accept(p, TK_DOT)) dots++;
  if ((at(p, TK_NAME) || !dots) && !parse_dotted_name(p)) return NULL;
  if (!expect(p, KW_IMPORT, "after the module name of a from-import")) return NULL;
  if (accept(p, TK_STAR)) return s;
  bool paren = accept(p, TK_LPAREN);
  do {
    if (paren && at(p, TK_RPAREN)) break;
    if (!expect_name(p, "a name to import")) return NULL;
    if (accept(p, KW_AS) && !expect_name(p, "a name after 'as'")) return NULL;
  } while (accept(p, TK_COMMA));
  if (paren && !expect(p, TK_RPAREN, "to close the import list")) return NULL;
  return s;
}

static Ast *parse_small(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *s;
  switch (p->tok.kind) {
  case KW_PASS:
    advance(p);
    return node(p, AST_PASS, loc);
  case KW_RETURN:
    advance(p);
    s = node(p, AST_RETURN, loc);
    if (starts_expr(p->tok.kind) && !(s->value = parse_value(p))) return NULL;
    return s;
  case KW_ASSERT:
    advance(p);
    s = node(p, AST_ASSERT, loc);
    if (!(s->test = parse_test(p))) return NULL;
    if (accept(p, TK_COMMA) && !(s->value = parse_test(p))) return NULL;
    return s;
  case KW_IMPORT: return parse_import(p);
  case KW_FROM: return parse_from(p);
  default:
    if (is_unsupported_stmt(p->tok.kind))
      return fail(p, loc, "'%s' statements are not supported", mlc_tok_spelling(p->tok.kind));
    return parse_expr_stmt(p);
  }
}

/* small statements separated by ';' through the end of the line */
static bool parse_simple_line(Parser *p, ListB *out) {
  for (;;) {
    Ast *s = parse_small(p);
    if (!s) return false;
    list_push(p, out, s);
    if (!accept(p, TK_SEMI) || at(p, TK_NEWLINE)) break;
  }
  if (at(p, TK_NEWLINE)) {
    advance(p);
    return true;
  }
  fail(p, p->tok.loc, "expected newline or ';' after a statement, found %s", describe(p, &p->tok));
  return false;
}

/* ---- compound statements ----------------------------------------------------------- */

/* The suite after a header's ':': an indented block, or simple statements on
 * the same line.  `what` and `line` name the header in messages. */
static bool parse_block(Parser *p, const char *what, int line, AstList *body) {
  ListB stmts = {0};
  if (!blocks_in(p, 1)) return false;
  if (!at(p, TK_NEWLINE)) {
    if (!parse_simple_line(p, &stmts)) return false;
  } else {
    advance(p);
    if (!at(p, TK_INDENT)) {
      fail(p, p->tok.loc, "expected an indented block after %s on line %d, found %s", what, line,
           describe(p, &p->tok));
      return false;
    }
    advance(p);
    while (!at(p, TK_DEDENT)) {
      if (accept(p, TK_NEWLINE)) continue;
      if (!parse_stmt(p, &stmts)) return false;
    }
    advance(p);
  }
  p->blocks--;
  *body = list_done(&stmts);
  return true;
}

/* if/elif/else; an elif is an IF alone in the orelse of the one before, so
 * the chain counts as nesting */
static Ast *parse_if(Parser *p) {
  Ast *head = NULL, *last = NULL;
  int elifs = 0;
  do {
    MlcLoc loc = p->tok.loc;
    bool elif = at(p, KW_ELIF);
    if (elif && !blocks_in(p, 1)) return NULL;
    elifs += elif;
    advance(p);
    Ast *n = node(p, AST_IF, loc);
    if (!(n->test = parse_test(p))) return NULL;
    if (!expect(p, TK_COLON, elif ? "after elif condition" : "after if condition")) return NULL;
    if (!parse_block(p, elif ? "'elif' statement" : "'if' statement", loc.line, &n->body)) return NULL;
    if (last) last->orelse = list_of_one(p, n);
    else head = n;
    last = n;
  } while (at(p, KW_ELIF));
  if (at(p, KW_ELSE)) {
    MlcLoc loc = p->tok.loc;
    advance(p);
    if (!expect(p, TK_COLON, "after 'else'")) return NULL;
    if (!parse_block(p, "'else' statement", loc.line, &last->orelse)) return NULL;
  }
  p->blocks -= elifs;
  return head;
}

static Ast *parse_for(Parser *p) {
  Ast *f = node(p, AST_FOR, p->tok.loc);
  advance(p);
  if (!(f->target = parse_testlist(p, parse_star_or_bitor)) || !check_top_target(p, f->target)) return NULL;
  if (!expect(p, KW_IN, "after for target")) return NULL;
  if (!(f->iter = parse_value(p))) return NULL;
  if (!expect(p, TK_COLON, "after for header")) return NULL;
  if (!parse_block(p, "'for' statement", f->loc.line, &f->body)) return NULL;
  if (at(p, KW_ELSE)) return fail(p, p->tok.loc, "'else' after a for loop is not supported");
  return f;
}

/* with a [as x], b [as y]: -- nested WITHs, the same meaning in Python */
static Ast *parse_with(Parser *p) {
  MlcLoc loc = p->tok.loc;
  Ast *outer = NULL, *inner = NULL;
  int items = 0;
  advance(p);
  do {
    if (items && !blocks_in(p, 1)) return NULL;
    Ast *w = node(p, AST_WITH, items ? p->tok.loc : loc);
    items++;
    if (!(w->value = parse_test(p))) return NULL;
    if (accept(p, KW_AS) && (!(w->target = parse_bitor(p)) || !check_target(p, w->target))) return NULL;
    if (inner) inner->body = list_of_one(p, w);
    else outer = w;
    inner = w;
  } while (accept(p, TK_COMMA));
  if (!expect(p, TK_COLON, "after with header")) return NULL;
  if (!parse_block(p, "'with' statement", loc.line, &inner->body)) return NULL;
  p->blocks -= items - 1;
  return outer;
}

static bool parse_params(Parser *p, Ast *def) {
  ParamB ps = {0};
  bool seen_default = false;
  while (!at(p, TK_RPAREN)) {
    MlcLoc loc = p->tok.loc;
    if (at(p, TK_STAR) || at(p, TK_POW) || at(p, TK_SLASH)) {
      fail(p, loc, "'%s' in a parameter list is not supported", mlc_tok_spelling(p->tok.kind));
      return false;
    }
    AstParam prm = {expect_name(p, "a parameter name"), NULL, NULL, loc};
    if (!prm.name) return false;
    if (accept(p, TK_COLON) && !(prm.annot = parse_test(p))) return false;
    if (accept(p, TK_ASSIGN)) {
      if (!(prm.dflt = parse_test(p))) return false;
      seen_default = true;
    } else if (seen_default) {
      fail(p, loc, "parameter without a default follows parameter with a default");
      return false;
    }
    ps.items = grow(p, ps.items, ps.n, &ps.cap, sizeof *ps.items);
    ps.items[ps.n++] = prm;
    if (!accept(p, TK_COMMA)) break;
  }
  if (!expect_close(p, TK_RPAREN, "a parameter")) return false;
  NameAt *names = names_array(p, ps.n);
  for (int i = 0; i < ps.n; i++) names[i] = (NameAt){ps.items[i].name, i};
  int rep = first_repeat(names, ps.n);
  if (rep >= 0) {
    fail(p, ps.items[rep].loc, "duplicate parameter '%s' in function definition", ps.items[rep].name);
    return false;
  }
  def->params = ps.items;
  def->n_params = ps.n;
  return true;
}

static Ast *parse_def(Parser *p, AstList decorators) {
  Ast *d = node(p, AST_FUNCDEF, p->tok.loc);
  d->decorators = decorators;
  advance(p);
  if (!(d->name = expect_name(p, "a function name after 'def'"))) return NULL;
  if (!expect(p, TK_LPAREN, "after the function name")) return NULL;
  if (!parse_params(p, d)) return NULL;
  if (accept(p, TK_ARROW) && !(d->returns = parse_test(p))) return NULL;
  if (!expect(p, TK_COLON, "after function header")) return NULL;
  if (!parse_block(p, "function definition", d->loc.line, &d->body)) return NULL;
  return d;
}

static Ast *parse_class(Parser *p, AstList decorators) {
  Ast *c = node(p, AST_CLASSDEF, p->tok.loc);
  c->decorators = decorators;
  advance(p);
  if (!(c->name = expect_name(p, "a class name after 'class'"))) return NULL;
  int d = 0;
  if (accept(p, TK_LPAREN) && !parse_args(p, c, &d)) return NULL;
  if (!expect(p, TK_COLON, "after class header")) return NULL;
  if (!parse_block(p, "class definition", c->loc.line, &c->body)) return NULL;
  return c;
}

/* @expr lines, then the def or class they decorate */
static Ast *parse_decorated(Parser *p) {
  ListB decs = {0};
  while (accept(p, TK_AT)) {
    Ast *e = parse_test(p);
    if (!e) return NULL;
    list_push(p, &decs, e);
    if (!accept(p, TK_NEWLINE))
      return fail(p, p->tok.loc, "expected newline after a decorator, found %s", describe(p, &p->tok));
  }
  if (at(p, KW_DEF)) return parse_def(p, list_done(&decs));
  if (at(p, KW_CLASS)) return parse_class(p, list_done(&decs));
  return fail(p, p->tok.loc, "expected 'def' or 'class' after a decorator, found %s", describe(p, &p->tok));
}

static bool parse_stmt(Parser *p, ListB *out) {
  static const AstList none = {NULL, 0};
  Ast *s;
  switch (p->tok.kind) {
  case TK_INDENT:
    fail(p, p->tok.loc, "unexpected indent");
    return false;
  case KW_IF: s = parse_if(p); break;
  case KW_FOR: s = parse_for(p); break;
  case KW_WITH: s = parse_with(p); break;
  case KW_DEF: s = parse_def(p, none); break;
  case KW_CLASS: s = parse_class(p, none); break;
  case TK_AT: s = parse_decorated(p); break;
  default: return parse_simple_line(p, out);
  }
  if (!s) return false;
  list_push(p, out, s);
  return true;
}

/* ---- entry ------------------------------------------------------------------------ */

bool mlc_parse(MlcCtx *ctx, const char *file, const char *text, size_t len, AstList *out) {
  *out = (AstList){NULL, 0};
  const char *fname = mlc_intern(ctx, file ? file : "<input>");
  if (!text) {
    text = "";
    len = 0;
  }
  if (len > MAX_INPUT_BYTES)
    return mlc_error(ctx, (MlcLoc){fname, 0, 0}, "input of %zu bytes refused: the limit is 64 MiB", len);
  mlc_ctx_add_source(ctx, fname, text, len);
  Parser p;
  memset(&p, 0, sizeof p);
  p.ctx = ctx;
  mlc_lex_init(&p.lx, ctx, fname, text, len);
  advance(&p);
  ListB stmts = {0};
  while (!p.failed && !at(&p, TK_EOF)) {
    if (accept(&p, TK_NEWLINE)) continue;
    if (!parse_stmt(&p, &stmts)) break;
  }
  mlc_lex_free(&p.lx);
  mlc_vec_free(&p.sb);
  if (p.failed) return false;
  *out = list_done(&stmts);
  return true;
}
