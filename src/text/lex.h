/* lex.h - the tokenizer of the Python subset TVMScript is written in.
 *
 * A pull lexer: the parser asks for one token at a time, so a 64 MiB file
 * never becomes a token array.  Python's layout rules live here (INDENT and
 * DEDENT from an indentation stack, newlines ignored inside brackets,
 * backslash continuation), so the parser sees a plain token stream.
 *
 * A lexical error does not touch the context: it becomes a TK_ERROR token
 * carrying the message and location, and every later token is that same
 * error.  The parser records it when the token becomes current, so a syntax
 * error found earlier in the text still wins over one the lexer met while the
 * parser was looking ahead. */
#ifndef MLCC_TEXT_LEX_H
#define MLCC_TEXT_LEX_H

#include "mlcc/support.h"

/* deepest bracket nesting and deepest block indentation accepted */
#define MLC_LEX_MAX_DEPTH 200

/* Layout and literal tokens: kind, description used in messages. */
#define MLC_TOKENS_LAYOUT(X)                                                   \
  X(TK_EOF, "end of file") X(TK_NEWLINE, "newline") X(TK_INDENT, "indent")     \
  X(TK_DEDENT, "dedent") X(TK_NAME, "name") X(TK_INT, "number")                \
  X(TK_FLOAT, "number") X(TK_STR, "string literal") X(TK_ERROR, "invalid token")

/* Operators and delimiters: kind, spelling.  The lexer takes the longest
 * spelling that matches, so order does not matter. */
#define MLC_TOKENS_PUNCT(X)                                                     \
  X(TK_LPAREN, "(") X(TK_RPAREN, ")") X(TK_LBRACK, "[") X(TK_RBRACK, "]")       \
  X(TK_LBRACE, "{") X(TK_RBRACE, "}") X(TK_COMMA, ",") X(TK_COLON, ":")         \
  X(TK_SEMI, ";") X(TK_DOT, ".") X(TK_ARROW, "->") X(TK_AT, "@")                \
  X(TK_ASSIGN, "=") X(TK_PLUS, "+") X(TK_MINUS, "-") X(TK_STAR, "*")            \
  X(TK_SLASH, "/") X(TK_DSLASH, "//") X(TK_PERCENT, "%") X(TK_POW, "**")        \
  X(TK_AMP, "&") X(TK_PIPE, "|") X(TK_CARET, "^") X(TK_TILDE, "~")              \
  X(TK_LSHIFT, "<<") X(TK_RSHIFT, ">>") X(TK_EQ, "==") X(TK_NE, "!=")           \
  X(TK_LT, "<") X(TK_LE, "<=") X(TK_GT, ">") X(TK_GE, ">=")                     \
  X(TK_PLUS_EQ, "+=") X(TK_MINUS_EQ, "-=") X(TK_STAR_EQ, "*=")                  \
  X(TK_SLASH_EQ, "/=") X(TK_DSLASH_EQ, "//=") X(TK_PERCENT_EQ, "%=")            \
  X(TK_POW_EQ, "**=") X(TK_AT_EQ, "@=") X(TK_AMP_EQ, "&=") X(TK_PIPE_EQ, "|=")  \
  X(TK_CARET_EQ, "^=") X(TK_LSHIFT_EQ, "<<=") X(TK_RSHIFT_EQ, ">>=")

/* Python's keywords: kind, spelling.  All are reserved (none is a name), even
 * the ones whose statements the parser refuses. */
#define MLC_TOKENS_KEYWORD(X)                                                   \
  X(KW_FALSE, "False") X(KW_NONE, "None") X(KW_TRUE, "True") X(KW_AND, "and")   \
  X(KW_AS, "as") X(KW_ASSERT, "assert") X(KW_ASYNC, "async")                    \
  X(KW_AWAIT, "await") X(KW_BREAK, "break") X(KW_CLASS, "class")                \
  X(KW_CONTINUE, "continue") X(KW_DEF, "def") X(KW_DEL, "del")                  \
  X(KW_ELIF, "elif") X(KW_ELSE, "else") X(KW_EXCEPT, "except")                  \
  X(KW_FINALLY, "finally") X(KW_FOR, "for") X(KW_FROM, "from")                  \
  X(KW_GLOBAL, "global") X(KW_IF, "if") X(KW_IMPORT, "import") X(KW_IN, "in")   \
  X(KW_IS, "is") X(KW_LAMBDA, "lambda") X(KW_NONLOCAL, "nonlocal")              \
  X(KW_NOT, "not") X(KW_OR, "or") X(KW_PASS, "pass") X(KW_RAISE, "raise")       \
  X(KW_RETURN, "return") X(KW_TRY, "try") X(KW_WHILE, "while")                  \
  X(KW_WITH, "with") X(KW_YIELD, "yield")

typedef enum MlcTokKind {
#define MLC_TOK_ENUM(k, s) k,
  MLC_TOKENS_LAYOUT(MLC_TOK_ENUM) MLC_TOKENS_PUNCT(MLC_TOK_ENUM)
  MLC_TOKENS_KEYWORD(MLC_TOK_ENUM)
#undef MLC_TOK_ENUM
  TK__COUNT
} MlcTokKind;

typedef struct MlcTok {
  MlcTokKind kind;
  MlcLoc loc;        /* first byte of the token */
  const char *text;  /* the token's bytes in the source (not NUL-terminated) */
  size_t len;
  const char *str;   /* NAME: interned name; STR: interned decoded text;
                        ERROR: the message (owned by the lexer) */
  uint64_t ival;     /* INT: at most 2^63, which is valid only negated */
  double fval;       /* FLOAT */
  bool at_eof;       /* NEWLINE / DEDENT made up at the end of the input */
  int depth;         /* brackets open after this token */
} MlcTok;

typedef struct MlcLexer {
  MlcCtx *ctx;
  const char *file; /* interned */
  const char *src;
  size_t len, pos;
  int line;          /* of pos */
  size_t line_start; /* offset of the first byte of that line */
  bool at_line_start;   /* indentation of this line not yet measured */
  int pending_dedents;
  MlcLoc dedent_loc;
  MlcTokKind last_kind; /* of the last token handed out */
  bool unclosed_at_eof; /* the error is a bracket never closed */
  /* indentation stack: columns with tabs to multiples of 8 and with tabs as
   * one column; both must order the same way or the tabs are ambiguous */
  int indent[MLC_LEX_MAX_DEPTH + 1], alt_indent[MLC_LEX_MAX_DEPTH + 1];
  int n_indent;
  char bracket[MLC_LEX_MAX_DEPTH];
  MlcLoc bracket_loc[MLC_LEX_MAX_DEPTH];
  int n_bracket;
  bool failed;
  MlcTok error; /* the sticky error token */
  char err_msg[256];
  MlcStrBuf scratch; /* decoded strings, float text */
} MlcLexer;

/* `file` is interned; `src[0..len)` may hold any bytes. */
void mlc_lex_init(MlcLexer *lx, MlcCtx *ctx, const char *file, const char *src, size_t len);
void mlc_lex_next(MlcLexer *lx, MlcTok *out);
void mlc_lex_free(MlcLexer *lx);
/* "(" for punctuation, "for" for keywords, a description for the others */
const char *mlc_tok_spelling(MlcTokKind k);

#endif
