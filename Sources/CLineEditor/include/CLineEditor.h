#ifndef CDHIST_LINE_EDITOR_H
#define CDHIST_LINE_EDITOR_H

/*
 * The line editing the interactive session uses, the same with GNU Readline and with libedit.
 * Swift sees only these calls: the two libraries' headers differ in types (const char * or
 * char *), in names (macOS's libedit has no rl_replace_line, rl_clear_screen or
 * rl_catch_signals), and macOS's header may not be importable as a module on Linux.
 */

/* Completion: `text` is the word before the cursor, `start` and `end` its bytes in the line. */
typedef char **(*cdhist_completer)(const char *text, int start, int end);
/* A generator of completions for `text`: called with state 0, 1, 2, … until it returns NULL. */
typedef char *(*cdhist_generator)(const char *text, int state);
/* Called with a finished line (malloc'd; the callee frees it), or NULL at end of input. */
typedef void (*cdhist_line_handler)(char *line);

/* The line editor's name and version, as "GNU Readline 8.2" or "libedit". */
const char *cdhist_line_editor_name(void);

/* Sets up the editor for `name`'s session: its own signal handlers off (the session handles
   Ctrl-C), Ctrl-L clears the screen, Tab asks `completer`. Called before the history calls:
   libedit's set-up (rl_initialize) starts its history afresh. */
void cdhist_line_setup(const char *name, cdhist_completer completer);

/* Shows `prompt` and reads a line a character at a time (cdhist_line_read_char when the
   terminal has input); `handler` gets the line. */
void cdhist_line_begin(const char *prompt, cdhist_line_handler handler);
void cdhist_line_end(void);
void cdhist_line_read_char(void);

/* The text being edited, while the completer runs (never NULL). */
const char *cdhist_line_text(void);
/* Abandons the line being edited (Ctrl-C at the prompt): 1 when it held text, 0 when empty.
   cdhist_line_restart then shows the prompt again on a new line. */
int cdhist_line_cancel(void);
void cdhist_line_restart(void);

/* Completions of `text` by `generator` for the completer to return; the editor's own file-name
   completion is not tried after them. `append` follows a single match (0: nothing). With several
   matches, `common` (when not NULL) is inserted instead of their longest common prefix. */
char **cdhist_line_matches(const char *text, int append, cdhist_generator generator, const char *common);
/* While completing: the quote that opens the word (GNU Readline passes the word without it and
   closes it after a single match), or 0. */
int cdhist_line_open_quote(void);
/* Whether a word begun with a quote stays one word across blanks (GNU Readline; not libedit). */
int cdhist_line_keeps_quoted_words(void);
/* What follows a single match when the completer returns NULL (the editor's file names). */
void cdhist_line_set_append(int append);

/* History: kept to `limit` entries, read from and appended to `path`. */
void cdhist_history_limit(int limit);
int cdhist_history_read(const char *path);
void cdhist_history_add(const char *line);
int cdhist_history_append(int count, const char *path);
int cdhist_history_write(const char *path);
int cdhist_history_truncate(const char *path, int limit);

#endif
