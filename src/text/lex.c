/* lex.c - tokens of the Python subset TVMScript is written in.
 *
 * The input is untrusted bytes with a length, not a C string: every read is
 * checked against `len` and a NUL byte is an error like any other stray byte.
 * Python's layout rules are applied here so the parser sees INDENT, DEDENT
 * and NEWLINE tokens and never whitespace.  Tabs count to the next multiple of
 * 8, and indentation must compare the same way when a tab counts as one
 * column (Python's rule), so a mix of tabs and spaces whose meaning depends on
 * the tab width is refused instead of guessed.
 *
 * Errors become a sticky TK_ERROR token (see lex.h) rather than a context
 * error, because the parser may look one token ahead of where it fails. */
#include "text/lex.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Spelled {
  MlcTokKind kind;
  const char *s;
  size_t n;
} Spelled;

#define MLC_TOK_SPELLED(k, s) {k, s, sizeof(s) - 1},
static const Spelled puncts[] = {MLC_TOKENS_PUNCT(MLC_TOK_SPELLED)};
static const Spelled keywords[] = {MLC_TOKENS_KEYWORD(MLC_TOK_SPELLED)};
#undef MLC_TOK_SPELLED
enum { N_PUNCTS = sizeof puncts / sizeof *puncts, N_KEYWORDS = sizeof keywords / sizeof *keywords };

/* The spellings of each table chained by first byte, longest first, so a
 * token is matched against the few entries that start like it (the lexer
 * runs for every byte of every program read).  Built once per process. */
typedef struct SpelledIndex {
  signed char head[128];  /* first entry starting with the byte; -1 if none */
  signed char next[64];   /* the next one with the same first byte */
} SpelledIndex;
static SpelledIndex punct_index, keyword_index;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;
_Static_assert(N_PUNCTS <= 64 && N_KEYWORDS <= 64, "SpelledIndex.next is too small");

static void index_table(SpelledIndex *ix, const Spelled *tab, int n) {
  memset(ix->head, -1, sizeof ix->head);
  for (int i = n - 1; i >= 0; i--) {
    signed char *link = &ix->head[(unsigned char)tab[i].s[0] & 127];
    while (*link >= 0 && tab[*link].n > tab[i].n) link = &ix->next[*link];
    ix->next[i] = *link;
    *link = (signed char)i;
  }
}

static void build_indexes(void) {
  index_table(&punct_index, puncts, N_PUNCTS);
  index_table(&keyword_index, keywords, N_KEYWORDS);
}

static const char *const spellings[TK__COUNT] = {
#define MLC_TOK_NAME(k, s) [k] = s,
    MLC_TOKENS_LAYOUT(MLC_TOK_NAME) MLC_TOKENS_PUNCT(MLC_TOK_NAME) MLC_TOKENS_KEYWORD(MLC_TOK_NAME)
#undef MLC_TOK_NAME
};

const char *mlc_tok_spelling(MlcTokKind k) {
  return (unsigned)k < TK__COUNT ? spellings[k] : "?";
}

/* ---- characters (ASCII only, independent of the C locale) ---------------- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }
/* value of a digit in bases up to 16; 99 for anything else */
static int digit_val(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

/* ---- positions ------------------------------------------------------------ */

static MlcLoc loc_at(const MlcLexer *lx, size_t pos) {
  return (MlcLoc){lx->file, lx->line, (int)(pos - lx->line_start) + 1};
}

/* bytes of the line end at pos: 1 for "\n", 2 for "\r\n", 0 otherwise.  A
 * lone "\r" is not a line end: the caret printer splits lines on "\n", and
 * line numbers must agree with it. */
static size_t eol_len(const MlcLexer *lx, size_t pos) {
  if (pos >= lx->len) return 0;
  if (lx->src[pos] == '\n') return 1;
  if (lx->src[pos] == '\r' && pos + 1 < lx->len && lx->src[pos + 1] == '\n') return 2;
  return 0;
}

static void new_line(MlcLexer *lx, size_t next_line_start) {
  lx->pos = next_line_start;
  lx->line++;
  lx->line_start = next_line_start;
}

/* ---- results --------------------------------------------------------------- */

static void emit(MlcLexer *lx, MlcTok *t, MlcTokKind kind, MlcLoc loc, size_t start) {
  t->kind = kind;
  t->loc = loc;
  t->text = lx->src ? lx->src + start : "";
  t->len = lx->pos > start ? lx->pos - start : 0;
}

/* Make *t the sticky error token; returns false for `return fail(...)`. */
MLC_PRINTF(4, 5)
static bool fail(MlcLexer *lx, MlcTok *t, MlcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lx->err_msg, sizeof lx->err_msg, fmt, ap);
  va_end(ap);
  memset(&lx->error, 0, sizeof lx->error);
  lx->error.kind = TK_ERROR;
  lx->error.loc = loc;
  lx->error.text = "";
  lx->error.str = lx->err_msg;
  lx->failed = true;
  *t = lx->error;
  return false;
}

/* ---- blanks, comments, indentation ----------------------------------------- */

/* Skip a comment up to (not including) its line end. */
static bool skip_comment(MlcLexer *lx, MlcTok *t) {
  size_t p = lx->pos;
  while (p < lx->len && lx->src[p] != '\n') {
    if (lx->src[p] == '\0')
      return fail(lx, t, loc_at(lx, p), "unexpected character: NUL byte in a comment (is this a binary file?)");
    p++;
  }
  if (p < lx->len && p > lx->pos && lx->src[p - 1] == '\r') p--; /* leave "\r\n" whole */
  lx->pos = p;
  return true;
}

/* Skip spaces, comments and backslash continuations; inside brackets, line
 * ends too.  Stops at a token, a line end outside brackets, or the end. */
static bool skip_blanks(MlcLexer *lx, MlcTok *t) {
  while (lx->pos < lx->len) {
    char c = lx->src[lx->pos];
    if (c == ' ' || c == '\t' || c == '\f') {
      lx->pos++;
    } else if (c == '#') {
      if (!skip_comment(lx, t)) return false;
    } else if (c == '\\') {
      size_t n = eol_len(lx, lx->pos + 1);
      if (n) {
        new_line(lx, lx->pos + 1 + n);
      } else if (lx->pos + 1 >= lx->len) {
        return fail(lx, t, loc_at(lx, lx->pos), "unexpected end of file after line continuation character");
      } else {
        return fail(lx, t, loc_at(lx, lx->pos + 1), "unexpected character after line continuation character");
      }
    } else if (lx->n_bracket > 0 && eol_len(lx, lx->pos)) {
      new_line(lx, lx->pos + eol_len(lx, lx->pos));
    } else {
      break;
    }
  }
  return true;
}

static bool inconsistent_tabs(MlcLexer *lx, MlcTok *t, MlcLoc loc) {
  return fail(lx, t, loc, "inconsistent use of tabs and spaces in indentation");
}

/* Compare the indentation of a new logical line with the stack; emits INDENT
 * or the first DEDENT (the rest wait in pending_dedents). */
static bool indent_token(MlcLexer *lx, MlcTok *t, int col, int alt) {
  MlcLoc loc = loc_at(lx, lx->pos);
  int top = lx->n_indent - 1;
  if (col == lx->indent[top]) {
    if (alt != lx->alt_indent[top]) return !inconsistent_tabs(lx, t, loc);
    return false;
  }
  if (col > lx->indent[top]) {
    if (alt <= lx->alt_indent[top]) return !inconsistent_tabs(lx, t, loc);
    if (lx->n_indent > MLC_LEX_MAX_DEPTH)
      return !fail(lx, t, loc, "too many levels of indentation (more than %d)", MLC_LEX_MAX_DEPTH);
    lx->indent[lx->n_indent] = col;
    lx->alt_indent[lx->n_indent] = alt;
    lx->n_indent++;
    emit(lx, t, TK_INDENT, loc, lx->pos);
    return true;
  }
  int k = lx->n_indent, popped = 0;
  while (k > 1 && col < lx->indent[k - 1]) k--, popped++;
  if (col != lx->indent[k - 1])
    return !fail(lx, t, loc, "unindent does not match any outer indentation level");
  if (alt != lx->alt_indent[k - 1]) return !inconsistent_tabs(lx, t, loc);
  lx->n_indent = k;
  lx->pending_dedents = popped - 1;
  lx->dedent_loc = loc;
  emit(lx, t, TK_DEDENT, loc, lx->pos);
  return true;
}

/* At the start of a logical line: skip blank and comment-only lines, then
 * measure the indentation.  True when *t holds a token (or an error). */
static bool line_start(MlcLexer *lx, MlcTok *t) {
  for (;;) {
    size_t p = lx->pos;
    int col = 0, alt = 0;
    for (; p < lx->len; p++) {
      char c = lx->src[p];
      if (c == ' ') col++, alt++;
      else if (c == '\t') col = (col / 8 + 1) * 8, alt++;
      else if (c == '\f') col = alt = 0; /* Python resets the count at a form feed */
      else break;
    }
    lx->pos = p;
    if (p < lx->len && lx->src[p] == '#') {
      if (!skip_comment(lx, t)) return true;
      p = lx->pos;
    }
    size_t n = eol_len(lx, p);
    if (n) {
      new_line(lx, p + n);
      continue;
    }
    if (p >= lx->len) return false;
    return indent_token(lx, t, col, alt) || lx->failed;
  }
}

/* ---- names and keywords ---------------------------------------------------- */

static bool lex_string(MlcLexer *lx, MlcTok *t, size_t start, bool raw);

/* A name of at most two letters right before a quote may be a string prefix.
 * True when it was (and *t is the string or an error). */
static bool string_prefix(MlcLexer *lx, MlcTok *t, size_t start) {
  size_t n = lx->pos - start;
  if (n > 2 || lx->pos >= lx->len || (lx->src[lx->pos] != '"' && lx->src[lx->pos] != '\'')) return false;
  int r = 0, u = 0, b = 0, f = 0;
  for (size_t i = start; i < lx->pos; i++) {
    switch (lx->src[i]) {
    case 'r': case 'R': r++; break;
    case 'u': case 'U': u++; break;
    case 'b': case 'B': b++; break;
    case 'f': case 'F': f++; break;
    default: return false;
    }
  }
  if (r > 1 || u > 1 || b + f > 1 || (u && n > 1)) return false;
  MlcLoc loc = loc_at(lx, start);
  if (b) fail(lx, t, loc, "bytes literals are not supported");
  else if (f) fail(lx, t, loc, "f-strings are not supported");
  else lex_string(lx, t, start, r > 0);
  return true;
}

static void lex_name(MlcLexer *lx, MlcTok *t) {
  size_t start = lx->pos;
  while (lx->pos < lx->len && is_ident(lx->src[lx->pos])) lx->pos++;
  if (string_prefix(lx, t, start)) return;
  size_t n = lx->pos - start;
  const char *s = lx->src + start;
  for (int i = keyword_index.head[(unsigned char)s[0] & 127]; i >= 0; i = keyword_index.next[i]) {
    if (keywords[i].n == n && memcmp(keywords[i].s, s, n) == 0) {
      emit(lx, t, keywords[i].kind, loc_at(lx, start), start);
      return;
    }
  }
  emit(lx, t, TK_NAME, loc_at(lx, start), start);
  t->str = mlc_intern_n(lx->ctx, s, n);
}

/* ---- numbers --------------------------------------------------------------- */

/* Read digits of `base` from lx->pos, single underscores allowed between
 * them (and before the first when `lead_ok`, as after "0x").  Accumulates
 * into *val when given, setting *over once the value passes 2^63.  Returns
 * the number of digits, or -1 for a misplaced underscore. */
static int scan_digits(MlcLexer *lx, int base, bool lead_ok, uint64_t *val, bool *over) {
  int n = 0;
  for (;;) {
    size_t p = lx->pos;
    if (p < lx->len && lx->src[p] == '_') {
      if ((n == 0 && !lead_ok) || p + 1 >= lx->len || digit_val(lx->src[p + 1]) >= base) return -1;
      p++;
    }
    if (p >= lx->len || digit_val(lx->src[p]) >= base) return n;
    if (val) {
      uint64_t d = (uint64_t)digit_val(lx->src[p]);
      if (*val > ((UINT64_C(1) << 63) - d) / (uint64_t)base) *over = true;
      else *val = *val * (uint64_t)base + d;
    }
    lx->pos = p + 1;
    n++;
  }
}

static bool lex_based_int(MlcLexer *lx, MlcTok *t, size_t start, int base) {
  static const char *const names[17] = {[2] = "binary", [8] = "octal", [16] = "hexadecimal"};
  MlcLoc loc = loc_at(lx, start);
  uint64_t v = 0;
  bool over = false;
  lx->pos = start + 2;
  int n = scan_digits(lx, base, true, &v, &over);
  if (n <= 0 || (lx->pos < lx->len && is_ident(lx->src[lx->pos])))
    return fail(lx, t, loc, "invalid %s literal", names[base]);
  if (over) return fail(lx, t, loc, "integer literal out of range");
  emit(lx, t, TK_INT, loc, start);
  t->ival = v;
  return true;
}

/* The float's text without underscores, converted by strtod. */
static double float_value(MlcLexer *lx, size_t start) {
  lx->scratch.len = 0;
  for (size_t i = start; i < lx->pos; i++)
    if (lx->src[i] != '_') mlc_sb_putc(&lx->scratch, lx->src[i]);
  return strtod(mlc_sb_cstr(&lx->scratch), NULL);
}

static bool lex_number(MlcLexer *lx, MlcTok *t) {
  size_t start = lx->pos;
  MlcLoc loc = loc_at(lx, start);
  if (lx->src[start] == '0' && start + 1 < lx->len) {
    switch (lx->src[start + 1]) {
    case 'x': case 'X': return lex_based_int(lx, t, start, 16);
    case 'o': case 'O': return lex_based_int(lx, t, start, 8);
    case 'b': case 'B': return lex_based_int(lx, t, start, 2);
    default: break;
    }
  }
  uint64_t v = 0;
  bool over = false, is_float = false;
  if (lx->src[start] != '.' && scan_digits(lx, 10, false, &v, &over) < 0)
    return fail(lx, t, loc, "invalid decimal literal");
  if (lx->pos < lx->len && lx->src[lx->pos] == '.') {
    is_float = true;
    lx->pos++;
    if (lx->pos < lx->len && (is_digit(lx->src[lx->pos]) || lx->src[lx->pos] == '_') &&
        scan_digits(lx, 10, false, NULL, NULL) <= 0)
      return fail(lx, t, loc, "invalid decimal literal");
  }
  if (lx->pos < lx->len && (lx->src[lx->pos] == 'e' || lx->src[lx->pos] == 'E')) {
    size_t q = lx->pos + 1;
    if (q < lx->len && (lx->src[q] == '+' || lx->src[q] == '-')) q++;
    if (q >= lx->len || !is_digit(lx->src[q])) return fail(lx, t, loc, "invalid decimal literal");
    lx->pos = q;
    if (scan_digits(lx, 10, false, NULL, NULL) < 0) return fail(lx, t, loc, "invalid decimal literal");
    is_float = true;
  }
  if (lx->pos < lx->len && (lx->src[lx->pos] == 'j' || lx->src[lx->pos] == 'J'))
    return fail(lx, t, loc, "imaginary literals are not supported");
  if (lx->pos < lx->len && is_ident(lx->src[lx->pos])) return fail(lx, t, loc, "invalid decimal literal");
  if (is_float) {
    emit(lx, t, TK_FLOAT, loc, start);
    t->fval = float_value(lx, start);
    return true;
  }
  if (lx->src[start] == '0' && v != 0)
    return fail(lx, t, loc, "leading zeros in decimal integer literals are not permitted; "
                            "use an 0o prefix for octal integers");
  if (over) return fail(lx, t, loc, "integer literal out of range");
  emit(lx, t, TK_INT, loc, start);
  t->ival = v;
  return true;
}

/* ---- strings --------------------------------------------------------------- */

static void put_utf8(MlcStrBuf *sb, uint32_t cp) {
  if (cp < 0x80) {
    mlc_sb_putc(sb, (char)cp);
  } else if (cp < 0x800) {
    mlc_sb_putc(sb, (char)(0xC0 | (cp >> 6)));
    mlc_sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    mlc_sb_putc(sb, (char)(0xE0 | (cp >> 12)));
    mlc_sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
    mlc_sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
  } else {
    mlc_sb_putc(sb, (char)(0xF0 | (cp >> 18)));
    mlc_sb_putc(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
    mlc_sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
    mlc_sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
  }
}

/* A code point written as an escape, stored as UTF-8 as Python's str holds
 * it.  NUL is refused: strings in the tree are C strings. */
static bool put_code_point(MlcLexer *lx, MlcTok *t, uint32_t cp, size_t bs) {
  if (cp == 0) return fail(lx, t, loc_at(lx, bs), "NUL character in string literal");
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return fail(lx, t, loc_at(lx, bs), "escape names an invalid code point 0x%X", (unsigned)cp);
  put_utf8(&lx->scratch, cp);
  return true;
}

/* \xNN, \uNNNN, \UNNNNNNNN: exactly `ndigits` hex digits after the letter */
static bool hex_escape(MlcLexer *lx, MlcTok *t, size_t bs, int ndigits) {
  uint32_t v = 0;
  for (int i = 0; i < ndigits; i++) {
    size_t p = bs + 2 + (size_t)i;
    if (p >= lx->len || digit_val(lx->src[p]) >= 16)
      return fail(lx, t, loc_at(lx, bs), "truncated \\%c escape: expected %d hex digits",
                  lx->src[bs + 1], ndigits);
    v = v * 16 + (uint32_t)digit_val(lx->src[p]);
  }
  lx->pos = bs + 2 + (size_t)ndigits;
  return put_code_point(lx, t, v, bs);
}

static bool octal_escape(MlcLexer *lx, MlcTok *t, size_t bs) {
  uint32_t v = 0;
  size_t p = bs + 1;
  for (int i = 0; i < 3 && p < lx->len && lx->src[p] >= '0' && lx->src[p] <= '7'; i++, p++)
    v = v * 8 + (uint32_t)(lx->src[p] - '0');
  lx->pos = p;
  return put_code_point(lx, t, v, bs);
}

/* The backslash at lx->pos inside a string. */
static bool lex_escape(MlcLexer *lx, MlcTok *t, bool raw) {
  static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
  size_t bs = lx->pos;
  if (bs + 1 >= lx->len) { /* the string loop reports it unterminated */
    lx->pos++;
    return true;
  }
  char e = lx->src[bs + 1];
  size_t nl = eol_len(lx, bs + 1);
  if (raw) { /* kept as written; the escaped quote does not end the string */
    mlc_sb_putc(&lx->scratch, '\\');
    if (nl) {
      mlc_sb_putc(&lx->scratch, '\n');
      new_line(lx, bs + 1 + nl);
    } else {
      if (e == '\0') return fail(lx, t, loc_at(lx, bs + 1), "NUL byte in string literal");
      mlc_sb_putc(&lx->scratch, e);
      lx->pos = bs + 2;
    }
    return true;
  }
  if (nl) { /* a backslash at the line end joins the lines */
    new_line(lx, bs + 1 + nl);
    return true;
  }
  for (size_t i = 0; simple[i]; i += 2) {
    if (simple[i] == e) {
      mlc_sb_putc(&lx->scratch, simple[i + 1]);
      lx->pos = bs + 2;
      return true;
    }
  }
  switch (e) {
  case 'x': return hex_escape(lx, t, bs, 2);
  case 'u': return hex_escape(lx, t, bs, 4);
  case 'U': return hex_escape(lx, t, bs, 8);
  case 'N': return fail(lx, t, loc_at(lx, bs), "\\N{...} escapes are not supported");
  default: break;
  }
  if (e >= '0' && e <= '7') return octal_escape(lx, t, bs);
  mlc_sb_putc(&lx->scratch, '\\'); /* an unknown escape stays as written, as in Python */
  lx->pos = bs + 1;
  return true;
}

/* A string literal whose prefix starts at `start`; lx->pos is at the quote. */
static bool lex_string(MlcLexer *lx, MlcTok *t, size_t start, bool raw) {
  MlcLoc loc = loc_at(lx, start);
  char q = lx->src[lx->pos];
  bool triple = lx->pos + 2 < lx->len && lx->src[lx->pos + 1] == q && lx->src[lx->pos + 2] == q;
  const char *unterminated = triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
  lx->pos += triple ? 3 : 1;
  lx->scratch.len = 0;
  for (;;) {
    if (lx->pos >= lx->len) return fail(lx, t, loc, "%s", unterminated);
    char c = lx->src[lx->pos];
    size_t nl = eol_len(lx, lx->pos);
    if (c == q) {
      if (!triple) {
        lx->pos++;
        break;
      }
      if (lx->pos + 2 < lx->len && lx->src[lx->pos + 1] == q && lx->src[lx->pos + 2] == q) {
        lx->pos += 3;
        break;
      }
      mlc_sb_putc(&lx->scratch, c);
      lx->pos++;
    } else if (nl) {
      if (!triple) return fail(lx, t, loc, "%s", unterminated);
      mlc_sb_putc(&lx->scratch, '\n');
      new_line(lx, lx->pos + nl);
    } else if (c == '\0') {
      return fail(lx, t, loc_at(lx, lx->pos), "NUL byte in string literal");
    } else if (c == '\\') {
      if (!lex_escape(lx, t, raw)) return false;
    } else {
      mlc_sb_putc(&lx->scratch, c);
      lx->pos++;
    }
  }
  t->kind = TK_STR;
  t->loc = loc;
  t->text = lx->src + start;
  t->len = lx->pos - start;
  t->str = mlc_intern_n(lx->ctx, mlc_sb_cstr(&lx->scratch), lx->scratch.len);
  return true;
}

/* ---- operators and stray bytes --------------------------------------------- */

static bool lex_bracket(MlcLexer *lx, MlcTok *t, char c, MlcLoc loc) {
  static const char open[] = "([{", close[] = ")]}";
  if (strchr(open, c)) {
    if (lx->n_bracket >= MLC_LEX_MAX_DEPTH)
      return fail(lx, t, loc, "too many nested brackets (more than %d)", MLC_LEX_MAX_DEPTH);
    lx->bracket[lx->n_bracket] = c;
    lx->bracket_loc[lx->n_bracket++] = loc;
    return true;
  }
  if (lx->n_bracket == 0) return fail(lx, t, loc, "invalid syntax: unexpected '%c' (no bracket is open)", c);
  char o = lx->bracket[lx->n_bracket - 1];
  if (strchr(close, c) - close != strchr(open, o) - open) {
    MlcLoc ol = lx->bracket_loc[lx->n_bracket - 1];
    return fail(lx, t, loc, "closing '%c' does not match opening '%c' on line %d", c, o, ol.line);
  }
  lx->n_bracket--;
  return true;
}

static bool lex_punct(MlcLexer *lx, MlcTok *t) {
  const Spelled *best = NULL;
  unsigned char c = (unsigned char)lx->src[lx->pos];
  if (c >= 128) return false;
  /* longest first: the first that matches is the longest match */
  for (int i = punct_index.head[c]; i >= 0 && !best; i = punct_index.next[i]) {
    const Spelled *p = &puncts[i];
    if (p->n <= lx->len - lx->pos && memcmp(lx->src + lx->pos, p->s, p->n) == 0) best = p;
  }
  if (!best) return false;
  size_t start = lx->pos;
  MlcLoc loc = loc_at(lx, start);
  if (best->n == 1 && strchr("()[]{}", best->s[0]) && !lex_bracket(lx, t, best->s[0], loc)) return true;
  lx->pos += best->n;
  emit(lx, t, best->kind, loc, start);
  return true;
}

static void lex_stray(MlcLexer *lx, MlcTok *t) {
  unsigned char c = (unsigned char)lx->src[lx->pos];
  MlcLoc loc = loc_at(lx, lx->pos);
  if (c == 0) fail(lx, t, loc, "unexpected character: NUL byte (is this a binary file?)");
  else if (c >= 0x80) fail(lx, t, loc, "unexpected character: byte 0x%02X (non-ASCII outside a string or comment)", c);
  else if (c == '\r') fail(lx, t, loc, "unexpected character: carriage return not followed by a line feed");
  else if (c < 32 || c == 127) fail(lx, t, loc, "unexpected character: control byte 0x%02X", c);
  else fail(lx, t, loc, "unexpected character '%c'", c);
}

/* ---- the token stream -------------------------------------------------------- */

/* End of input: close the last line, the open blocks, then EOF forever.
 * Of several brackets left open the outermost is named: the unfinished
 * construct starts there. */
static void lex_eof(MlcLexer *lx, MlcTok *t) {
  if (lx->n_bracket > 0) {
    fail(lx, t, lx->bracket_loc[0], "'%c' was never closed", lx->bracket[0]);
    lx->unclosed_at_eof = true;
    return;
  }
  MlcTokKind k = TK_EOF;
  if (lx->last_kind != TK_NEWLINE && lx->last_kind != TK_DEDENT) {
    k = TK_NEWLINE;
  } else if (lx->n_indent > 1) {
    lx->n_indent--;
    k = TK_DEDENT;
  }
  emit(lx, t, k, loc_at(lx, lx->pos), lx->pos);
  t->at_eof = true;
}

static void lex_token(MlcLexer *lx, MlcTok *t) {
  if (lx->pending_dedents > 0) {
    lx->pending_dedents--;
    emit(lx, t, TK_DEDENT, lx->dedent_loc, lx->pos);
    return;
  }
  if (lx->at_line_start) {
    lx->at_line_start = false;
    if (line_start(lx, t)) return;
  }
  if (!skip_blanks(lx, t)) return;
  if (lx->pos >= lx->len) {
    lex_eof(lx, t);
    return;
  }
  size_t start = lx->pos, nl = eol_len(lx, start);
  char c = lx->src[start];
  if (nl) { /* outside brackets: skip_blanks took those inside */
    MlcLoc loc = loc_at(lx, start);
    lx->pos += nl;
    emit(lx, t, TK_NEWLINE, loc, start);
    new_line(lx, start + nl);
    lx->at_line_start = true;
  } else if (is_ident_start(c)) {
    lex_name(lx, t);
  } else if (is_digit(c) || (c == '.' && start + 1 < lx->len && is_digit(lx->src[start + 1]))) {
    lex_number(lx, t);
  } else if (c == '"' || c == '\'') {
    lex_string(lx, t, start, false);
  } else if (!lex_punct(lx, t)) {
    lex_stray(lx, t);
  }
}

void mlc_lex_next(MlcLexer *lx, MlcTok *out) {
  memset(out, 0, sizeof *out);
  if (lx->failed) {
    *out = lx->error;
    return;
  }
  lex_token(lx, out);
  out->depth = lx->n_bracket;
  if (out->kind != TK_ERROR) lx->last_kind = out->kind;
}

void mlc_lex_init(MlcLexer *lx, MlcCtx *ctx, const char *file, const char *src, size_t len) {
  pthread_once(&index_once, build_indexes);
  memset(lx, 0, sizeof *lx);
  lx->ctx = ctx;
  lx->file = file;
  lx->src = src;
  lx->len = src ? len : 0;
  lx->line = 1;
  lx->at_line_start = true;
  lx->n_indent = 1;
  lx->last_kind = TK_NEWLINE;
  /* a UTF-8 byte order mark, as some editors write, is skipped; columns still
   * count it, as the caret printer does */
  if (lx->len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) lx->pos = 3;
}

void mlc_lex_free(MlcLexer *lx) { mlc_vec_free(&lx->scratch); }
