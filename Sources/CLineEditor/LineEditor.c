/*
 * The session's line editing, for GNU Readline (CDHIST_GNU_READLINE) and for libedit's
 * readline interface. The libedit side uses only what macOS's header declares and its
 * library implements (Apple's libedit-65, src/editline/readline.h and src/readline.c),
 * not the more Debian's newer libedit has, so a libedit build on Linux follows macOS's path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CLineEditor.h"

#ifdef CDHIST_GNU_READLINE
#include <readline/readline.h>
#include <readline/history.h>
#else
#include <editline/readline.h>
#endif

const char *cdhist_line_editor_name(void) {
#ifdef CDHIST_GNU_READLINE
    static char name[64];
    snprintf(name, sizeof name, "GNU Readline %s", rl_library_version ? rl_library_version : "");
    return name;
#else
    return "libedit";
#endif
}

#ifndef CDHIST_GNU_READLINE
/* macOS's libedit keeps rl_end (and rl_line_buffer) up to date only while it completes or
   runs a function bound with rl_add_defun (its key wrapper measures the line first). So the
   length of the line is learnt through such a function, bound to a key no terminal sends
   (^\ raises SIGQUIT while libedit edits), pushed as input (rl_insert) and read at once. */
#define MEASURE_KEY 0x1c
static int measured_length;

/* Called as (NULL, key) by macOS's libedit and (count, key) by Debian's: neither is used. */
static int measure_line(long unused, int key) {
    (void)unused;
    (void)key;
    measured_length = rl_end;
    return 0;
}
#endif

void cdhist_line_setup(const char *name, cdhist_completer completer) {
    /* GNU Readline declares it const char *, macOS's libedit char *: a copy kept for the process. */
    rl_readline_name = strdup(name);
    /* macOS's libedit uses its editor unchecked in rl_parse_and_bind and rl_add_defun. */
    rl_initialize();
    rl_attempted_completion_function = completer;
    /* Words end at blanks only: a value may hold quotes, '=' or '(' (the completer quotes it), and
       a word begun with a quote reaches the completer whole. Both editors read this variable. */
    rl_basic_word_break_characters = " \t\n";
    rl_completer_word_break_characters = " \t\n";
#ifdef CDHIST_GNU_READLINE
    /* GNU Readline keeps a quoted word whole (blanks and all), hands it over without its quote
       and closes the quote after a single match. libedit ignores quotes when it finds words. */
    rl_completer_quote_characters = "'\"";
#endif
#ifdef CDHIST_GNU_READLINE
    /* The session watches SIGINT itself; readline's handlers would reset the terminal under it. */
    rl_catch_signals = 0;
    /* Ctrl-L clears the screen (readline's own binding, made sure of). */
    rl_bind_key(12, rl_clear_screen);
#else
    /* libedit's rl_bind_key binds only rl_insert; its emacs keymap has ^L as ed-clear-screen,
       which rl_parse_and_bind (el_parse's "bind") makes sure of. Its signal handling is
       installed only while it reads a character and hands a signal on to the session's. */
    rl_parse_and_bind("bind ^L ed-clear-screen");
    /* The two headers type the function differently (Function *, rl_command_func_t *). */
    rl_add_defun("cdhist-measure-line", (void *)measure_line, MEASURE_KEY);
#endif
}

int cdhist_line_open_quote(void) {
#ifdef CDHIST_GNU_READLINE
    return rl_completion_quote_character;
#else
    return 0;
#endif
}

int cdhist_line_keeps_quoted_words(void) {
#ifdef CDHIST_GNU_READLINE
    return 1;
#else
    return 0;
#endif
}

/* The prompt and handler of the line being read, for cdhist_line_restart. */
static char *current_prompt;
static cdhist_line_handler current_handler;

void cdhist_line_begin(const char *prompt, cdhist_line_handler handler) {
    free(current_prompt);
    current_prompt = strdup(prompt);
    current_handler = handler;
    rl_callback_handler_install(prompt, handler);
}

void cdhist_line_end(void) {
    rl_callback_handler_remove();
}

void cdhist_line_read_char(void) {
    rl_callback_read_char();
}

const char *cdhist_line_text(void) {
    return rl_line_buffer ? rl_line_buffer : "";
}

int cdhist_line_cancel(void) {
#ifdef CDHIST_GNU_READLINE
    int had_text = rl_end > 0;
    rl_replace_line("", 0);
    return had_text;
#else
    measured_length = 0;
    rl_insert(1, MEASURE_KEY);
    rl_callback_read_char();
    /* macOS's libedit has no rl_replace_line and its rl_kill_text does nothing: the line is
       emptied when cdhist_line_restart reinstalls the handler (libedit starts over then). */
    rl_callback_handler_remove();
    return measured_length > 0;
#endif
}

void cdhist_line_restart(void) {
#ifdef CDHIST_GNU_READLINE
    rl_on_new_line();
    rl_redisplay();
#else
    rl_callback_handler_install(current_prompt ? current_prompt : "", current_handler);
#endif
}

char **cdhist_line_matches(const char *text, int append, cdhist_generator generator, const char *common) {
    rl_attempted_completion_over = 1;
    rl_completion_append_character = append;
    char **matches = rl_completion_matches(text, generator);
    /* Both editors insert matches[0] (the common prefix, malloc'ed) in place of `text`; `common`
       replaces it when given (the caller gives it for several matches, or for one it wants typed
       on). After it, GNU Readline lists a single match only when there are several; libedit
       lists it always. */
    if (matches && matches[0] && common) {
        char *replacement = strdup(common);
        if (replacement) {
            free(matches[0]);
            matches[0] = replacement;
        }
    }
    return matches;
}

void cdhist_line_set_append(int append) {
    rl_completion_append_character = append;
}

void cdhist_history_limit(int limit) {
    stifle_history(limit);
}

int cdhist_history_read(const char *path) {
    return read_history(path);
}

void cdhist_history_add(const char *line) {
    add_history(line);
}

int cdhist_history_append(int count, const char *path) {
#ifdef CDHIST_GNU_READLINE
    return append_history(count, path);
#else
    /* macOS's libedit has no append_history: the whole (stifled) history is written. */
    (void)count;
    return write_history(path);
#endif
}

int cdhist_history_write(const char *path) {
    return write_history(path);
}

int cdhist_history_truncate(const char *path, int limit) {
    return history_truncate_file(path, limit);
}
