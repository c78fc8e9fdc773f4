"""The part of a POSIX shell a switch's or server's sshd hands an exec request to, interpreted in the fleet's process.

A real device runs `/bin/sh -c '<request>'` (sshd: the user's login shell with -c, OpenSSH session.c
do_child()). The fleet serves thousands of devices from a few processes, so it cannot start a shell and a Python
process per command as the single SSH doubles do; it interprets the request here and runs the vendor commands
in-process (the single doubles' command code, tests/doubles/ssh). What it interprets is the POSIX shell grammar
(IEEE Std 1003.1, Shell Command Language, 2.9-2.10) for: simple commands with assignments and redirections to or
from /dev/null (2>/dev/null, 2>&1, >/dev/null, </dev/null), pipelines, `&&` and `||` lists, `;` and newlines,
`{ ...; }` groups, `( ... )` subshells, `for NAME in WORDS; do ...; done`, `if ...; then ...; [else ...;] fi`,
quoting ('...', "...", backslash), `$NAME`, `${NAME}`, `$?`, `$(...)` command substitution and field splitting of
unquoted expansions. Builtins: echo, printf (%s %d %%), true, false, :, exit, test/[ (the string and integer
tests), cat, sh -c / bash -c. Anything else of the grammar (globbing, here-documents, background jobs,
functions, arithmetic, other redirections) is refused: `sh: <what>: not supported by the fleet double` and exit
status 2, so a reading that starts needing it fails loudly in the fleet's tests instead of reading something
else.
"""

from __future__ import annotations

import base64
import functools
import os
import re

OPERATORS = ('&&', '||', ';;', '>>', '<<', '2>&1', '>&', ';', '|', '&', '(', ')', '<', '>', '\n')
RESERVED = {'for', 'in', 'do', 'done', 'if', 'then', 'else', 'elif', 'fi', 'while', 'until', 'case', 'esac', '{', '}',
            'function', '!'}
NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
MAX_DEPTH = 16  # nested substitutions and sh -c: a bound, not a shell feature


class Unsupported(Exception):
    """Shell syntax the fleet double does not interpret (exit status 2, like a shell's syntax error)."""


class Exit(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


# -- words ------------------------------------------------------------------------------------------------------------
# A word is a list of parts: ('lit', text, quoted), ('var', name, quoted), ('sub', source, quoted).
def _scan_dollar(text, index, quoted, parts):
    """Parse the expansion at text[index] == '$'; returns the index after it."""
    rest = text[index + 1:]
    if rest.startswith('('):
        if rest.startswith('(('):
            raise Unsupported('$((...)) arithmetic')
        depth, position, quote = 0, index + 1, None
        while position < len(text):
            char = text[position]
            if quote:
                if char == quote:
                    quote = None
                elif char == '\\' and quote == '"':
                    position += 1
            elif char in '\'"':
                quote = char
            elif char == '\\':
                position += 1
            elif char == '(':
                depth += 1
            elif char == ')':
                depth -= 1
                if depth == 0:
                    parts.append(('sub', text[index + 2:position], quoted))
                    return position + 1
            position += 1
        raise Unsupported('unterminated $(')
    if rest.startswith('{'):
        end = text.find('}', index)
        if end < 0:
            raise Unsupported('unterminated ${')
        name = text[index + 2:end]
        if not (NAME.match(name) or name in ('?', '@', '#') or name.isdigit()):
            raise Unsupported('${%s} (parameter operators)' % name)
        parts.append(('var', name, quoted))
        return end + 1
    match = re.match(r'[A-Za-z_][A-Za-z0-9_]*|\?', rest)
    if match:
        parts.append(('var', match.group(0), quoted))
        return index + 1 + match.end(0)
    if rest[:1].isdigit() or rest[:1] in ('@', '#'):
        parts.append(('var', rest[:1], quoted))
        return index + 2
    if rest[:1] in ('*', '$', '!', '-'):
        raise Unsupported('$%s' % rest[:1])
    parts.append(('lit', '$', quoted))
    return index + 1


def tokenize(text):
    """Tokens of `text`: ('op', operator) or ('word', parts, raw)."""
    tokens, index = [], 0
    while index < len(text):
        char = text[index]
        if char in ' \t':
            index += 1
            continue
        if char == '\\' and text[index + 1:index + 2] == '\n':
            index += 2
            continue
        if char == '#':
            while index < len(text) and text[index] != '\n':
                index += 1
            continue
        operator = next((op for op in OPERATORS if text.startswith(op, index)), None)
        if operator == '2>&1' or (operator is None and re.match(r'[0-9]>', text[index:index + 2])):
            if operator == '2>&1':
                tokens.append(('op', '2>&1'))
                index += 4
                continue
            tokens.append(('op', text[index] + '>'))
            index += 2
            continue
        if operator:
            if operator in ('<<', ';;', '>&'):
                raise Unsupported(operator)
            tokens.append(('op', operator))
            index += len(operator)
            continue
        parts, start = [], index
        while index < len(text) and text[index] not in ' \t\n;&|()<>':
            char = text[index]
            if char == "'":
                end = text.find("'", index + 1)
                if end < 0:
                    raise Unsupported('unterminated quote')
                parts.append(('lit', text[index + 1:end], True))
                index = end + 1
            elif char == '"':
                index += 1
                buffer = []
                while True:
                    if index >= len(text):
                        raise Unsupported('unterminated quote')
                    char = text[index]
                    if char == '"':
                        index += 1
                        break
                    if char == '\\' and text[index + 1:index + 2] in ('$', '`', '"', '\\', '\n'):
                        buffer.append(text[index + 1])
                        index += 2
                    elif char == '$':
                        if buffer:
                            parts.append(('lit', ''.join(buffer), True))
                            buffer = []
                        index = _scan_dollar(text, index, True, parts)
                    elif char == '`':
                        raise Unsupported('`...` (use $(...))')
                    else:
                        buffer.append(char)
                        index += 1
                parts.append(('lit', ''.join(buffer), True))
            elif char == '\\':
                parts.append(('lit', text[index + 1:index + 2], True))
                index += 2
            elif char == '$':
                index = _scan_dollar(text, index, False, parts)
            elif char == '`':
                raise Unsupported('`...` (use $(...))')
            elif char in '*?':
                raise Unsupported('pathname expansion (%s)' % char)
            elif char == '~' and index == start:
                raise Unsupported('tilde expansion')
            else:
                parts.append(('lit', char, False))
                index += 1
        tokens.append(('word', parts, text[start:index]))
    return tokens


# -- grammar ----------------------------------------------------------------------------------------------------------
class Parser:
    def __init__(self, tokens):
        self.tokens, self.index = tokens, 0

    def peek(self):
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def keyword(self, *words):
        token = self.peek()
        return token is not None and token[0] == 'word' and token[2] in words

    def op(self, *ops):
        token = self.peek()
        return token is not None and token[0] == 'op' and token[1] in ops

    def take(self):
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect_word(self, *words):
        if not self.keyword(*words):
            found = self.peek()
            seen = found[2] if found and found[0] == 'word' else found[1] if found else 'end of input'
            raise Unsupported('syntax: expected %s, found %s' % ('/'.join(words), seen))
        return self.take()

    def skip_newlines(self):
        while self.op('\n'):
            self.take()

    def program(self):
        node = self.list_until(())
        if self.peek() is not None:
            token = self.peek()
            raise Unsupported('syntax: unexpected %s' % (token[1] if token[0] == 'op' else token[2]))
        return node

    def list_until(self, terminators):
        items = []
        self.skip_newlines()
        while self.peek() is not None and not self.keyword(*terminators) and not self.op(')'):
            items.append(self.and_or())
            if self.op(';', '\n', '&'):  # a background job runs to its end first: the double's commands end at once
                self.take()
                self.skip_newlines()
            else:
                break
        return ('list', items)

    def and_or(self):
        node = self.pipeline()
        while self.op('&&', '||'):
            operator = self.take()[1]
            self.skip_newlines()
            node = (operator, node, self.pipeline())
        return node

    def pipeline(self):
        if self.keyword('!'):
            raise Unsupported('! (negated pipelines)')
        commands = [self.command()]
        while self.op('|'):
            self.take()
            self.skip_newlines()
            commands.append(self.command())
        return ('pipe', commands) if len(commands) > 1 else commands[0]

    def command(self):
        if self.keyword('{'):
            self.take()
            body = self.list_until(('}',))
            self.expect_word('}')
            return self.redirected(('group', body))
        if self.op('('):
            self.take()
            body = self.list_until(())
            if not self.op(')'):
                raise Unsupported('syntax: ( without )')
            self.take()
            return self.redirected(('subshell', body))
        if self.keyword('for'):
            self.take()
            name = self.take()
            if name[0] != 'word' or not NAME.match(name[2]):
                raise Unsupported('syntax: for needs a name')
            words = []
            self.skip_newlines()
            if self.keyword('in'):
                self.take()
                while self.peek() is not None and self.peek()[0] == 'word':
                    words.append(self.take()[1])
            else:
                raise Unsupported('for without in (positional parameters)')
            if self.op(';', '\n'):
                self.take()
            self.skip_newlines()
            self.expect_word('do')
            body = self.list_until(('done',))
            self.expect_word('done')
            return self.redirected(('for', name[2], words, body))
        if self.keyword('if'):
            self.take()
            branches, otherwise = [], None
            condition = self.list_until(('then',))
            self.expect_word('then')
            branches.append((condition, self.list_until(('elif', 'else', 'fi'))))
            while self.keyword('elif'):
                self.take()
                condition = self.list_until(('then',))
                self.expect_word('then')
                branches.append((condition, self.list_until(('elif', 'else', 'fi'))))
            if self.keyword('else'):
                self.take()
                otherwise = self.list_until(('fi',))
            self.expect_word('fi')
            return self.redirected(('if', branches, otherwise))
        if self.peek() is not None and self.peek()[0] == 'word' and self.peek()[2] in RESERVED - {'!'}:
            raise Unsupported(self.peek()[2])
        assignments, words, redirects = [], [], []
        while True:
            token = self.peek()
            if token is None:
                break
            if token[0] == 'word':
                match = re.match(r'^([A-Za-z_][A-Za-z0-9_]*)=', token[2])
                if not words and match:
                    self.take()
                    assignments.append((match.group(1), _strip_prefix(token[1], len(match.group(0)))))
                    continue
                if not words and not assignments and NAME.match(token[2]) and \
                        self.tokens[self.index + 1:self.index + 3] == [('op', '('), ('op', ')')]:
                    self.index += 3
                    self.skip_newlines()
                    return ('function', token[2], self.command())
                words.append(self.take()[1])
            elif token[1] in ('<', '>', '>>', '2>', '1>', '2>&1'):
                redirects.append(self.redirect())
            else:
                break
        if not words and not assignments:
            token = self.peek()
            raise Unsupported('syntax: unexpected %s' % (token[1] if token else 'end of input'))
        return ('simple', assignments, words, redirects)

    def redirect(self):
        operator = self.take()[1]
        if operator == '2>&1':
            return ('2>&1', None)
        target = self.take()
        if target[0] != 'word':
            raise Unsupported('syntax: redirection without a target')
        return (operator, target[1])

    def redirected(self, node):
        redirects = []
        while self.op('<', '>', '>>', '2>', '1>', '2>&1'):
            redirects.append(self.redirect())
        return ('redirect', node, redirects) if redirects else node


def _strip_prefix(parts, length):
    """The parts of a word less its first `length` raw characters (NAME= of an assignment, always unquoted)."""
    out, remaining = [], length
    for kind, value, quoted in parts:
        if remaining and kind == 'lit' and not quoted:
            take = min(remaining, len(value))
            value, remaining = value[take:], remaining - take
            if not value:
                continue
        out.append((kind, value, quoted))
    return out


@functools.lru_cache(maxsize=4096)
def parse(text):
    """The syntax tree of `text` (a reading sends the same requests to every device: parsed once)."""
    return Parser(tokenize(text)).program()


# -- evaluation -------------------------------------------------------------------------------------------------------
SHELLS = ('sh', 'bash', '/bin/sh', '/bin/bash', '/usr/bin/sh', '/usr/bin/bash')
STDIN_READERS = ('cat', 'base64')


class Shell:
    """Runs requests against one device's commands: `commands(argv, stdin) -> (rc, stdout, stderr)` for every name that
    is not a builtin (rc 127 and `<name>: command not found` for a name the device does not have).

    Files: a request may write only inside a directory it made with `mktemp -d` (what a reading's batch script does);
    those live in memory for the request. Reading any other file is the device's (`cat /etc/nccl.conf`)."""

    def __init__(self, commands, variables=None):
        self.commands = commands
        self.variables = dict(variables or {})
        self.status = 0
        self.depth = 0
        self.last_substitution = None
        self.positional = []
        self.functions = {}
        self.files, self.directories, self.traps = {}, set(), []
        self.temporaries = 0

    def needs_stdin(self, text):
        """Whether the request reads its standard input (a shell without -c reads its script there; cat and base64
        without a file): only then does the server wait for the client's end of input."""
        try:
            tree = parse(text)
        except Unsupported:
            return False
        return _reads_stdin(tree)

    def run(self, text, stdin=''):
        """(rc, stdout, stderr) of the request `text`, as `sh -c text`."""
        top = self.depth == 0
        if top:
            self.files, self.directories, self.traps, self.functions = {}, set(), [], {}
            self.variables, self.positional, self.status = {}, [], 0
        self.depth += 1
        out, err = [], []
        try:
            if self.depth > MAX_DEPTH:
                raise Unsupported('nesting deeper than %d' % MAX_DEPTH)
            tree = parse(text)
            try:
                self.status = self.evaluate(tree, stdin, out, err)
            except Exit as stop:
                self.status = stop.code
            if top:
                self.run_traps(out, err)
            return self.status, ''.join(out), ''.join(err)
        except Unsupported as error:
            self.status = 2
            return 2, ''.join(out), ''.join(err) + 'sh: %s: not supported by the fleet double\n' % error
        finally:
            self.depth -= 1

    def run_traps(self, out, err):
        """The EXIT traps of the shell that ends (trap '...' EXIT), in the order they were set."""
        traps, self.traps = self.traps, []
        for trap in traps:
            try:
                self.evaluate(parse(trap), '', out, err)
            except Exit:
                pass

    # words
    def value(self, name):
        if name == '?':
            return str(self.status)
        if name == '#':
            return str(len(self.positional))
        if name.isdigit():
            index = int(name)
            return self.positional[index - 1] if 0 < index <= len(self.positional) else ''
        return self.variables.get(name, '')

    def expand(self, parts):
        """Fields of one word: quoted parts stay whole ("$@": one field per parameter), unquoted expansions split at
        blanks."""
        fields, current, have = [], [], False
        for kind, value, quoted in parts:
            if kind == 'lit':
                current.append(value)
                have = have or quoted or bool(value)
                continue
            if kind == 'var' and value == '@' and quoted:
                for index, parameter in enumerate(self.positional):
                    if index:
                        fields.append(''.join(current))
                        current = []
                    current.append(parameter)
                    have = True
                continue
            text = (' '.join(self.positional) if value == '@' else self.value(value)) if kind == 'var' else \
                self.substitute(value)
            if quoted:
                current.append(text)
                have = True
                continue
            pieces = text.split()
            if not pieces:
                continue
            if text[:1].isspace() and (current or have):
                fields.append(''.join(current))
                current, have = [], False
            for piece in pieces[:-1]:
                current.append(piece)
                fields.append(''.join(current))
                current = []
            current.append(pieces[-1])
            have = True
            if text[-1:].isspace():
                fields.append(''.join(current))
                current, have = [], False
        if current or have:
            fields.append(''.join(current))
        return fields

    def substitute(self, source):
        saved = self.status
        self.depth += 1
        out, err = [], []
        try:
            if self.depth > MAX_DEPTH:
                raise Unsupported('nesting deeper than %d' % MAX_DEPTH)
            try:
                rc = self.evaluate(parse(source), '', out, err)
            except Exit as stop:
                rc = stop.code
        finally:
            self.depth -= 1
        self.status, self.last_substitution = saved, rc  # an assignment's status is its last substitution's
        return ''.join(out).rstrip('\n')

    def words(self, words):
        return [field for word in words for field in self.expand(word)]

    # nodes
    def evaluate(self, node, stdin, out, err):
        kind = node[0]
        if kind == 'list':
            status = 0
            for item in node[1]:
                status = self.status = self.evaluate(item, stdin, out, err)
            return status
        if kind in ('&&', '||'):
            status = self.status = self.evaluate(node[1], stdin, out, err)
            if (status == 0) == (kind == '&&'):
                status = self.status = self.evaluate(node[2], stdin, out, err)
            return status
        if kind == 'pipe':
            data, status = stdin, 0
            for index, command in enumerate(node[1]):
                piped = []
                status = self.evaluate(command, data, piped if index < len(node[1]) - 1 else out, err)
                data = ''.join(piped)
            return status
        if kind == 'group':
            return self.evaluate(node[1], stdin, out, err)
        if kind == 'subshell':
            saved = dict(self.variables)
            try:
                return self.evaluate(node[1], stdin, out, err)
            except Exit as stop:
                return stop.code
            finally:
                self.variables = saved
        if kind == 'for':
            status = 0
            for value in self.words(node[2]):
                self.variables[node[1]] = value
                status = self.status = self.evaluate(node[3], stdin, out, err)
            return status
        if kind == 'if':
            for condition, body in node[1]:
                if self.evaluate(condition, stdin, [], err) == 0:
                    return self.evaluate(body, stdin, out, err)
            return self.evaluate(node[2], stdin, out, err) if node[2] else 0
        if kind == 'function':
            self.functions[node[1]] = node[2]
            return 0
        if kind == 'redirect':
            return self.with_redirects(node[2], stdin, out, err, lambda i, o, e: self.evaluate(node[1], i, o, e))
        return self.simple(node, stdin, out, err)

    def with_redirects(self, redirects, stdin, out, err, body):
        target_out, target_err, written = out, err, []
        for operator, word in redirects:
            if operator == '2>&1':
                target_err = target_out
                continue
            fields = self.expand(word)
            if len(fields) != 1:
                err.append('sh: 1: ambiguous redirect\n')
                return 2
            path = fields[0]
            if operator == '<':
                if path == '/dev/null':
                    stdin = ''
                elif path in self.files:
                    stdin = self.files[path]
                else:
                    err.append('sh: 1: cannot open %s: No such file\n' % path)
                    return 2
                continue
            buffer = []
            if path != '/dev/null':
                if os.path.dirname(path) not in self.directories:
                    err.append('sh: 1: cannot create %s: Read-only file system\n' % path)
                    return 2
                written.append((path, buffer, operator == '>>'))
            if operator == '2>':
                target_err = buffer
            else:
                target_out = buffer
        status = body(stdin, target_out, target_err)
        for path, buffer, append in written:
            self.files[path] = (self.files.get(path, '') if append else '') + ''.join(buffer)
        return status

    def simple(self, node, stdin, out, err):
        _kind, assignments, words, redirects = node
        self.last_substitution = None
        argv = self.words(words)
        values = [(name, ''.join(self.expand(value)) if value else '') for name, value in assignments]
        if not argv:
            for name, value in values:
                self.variables[name] = value
            return self.last_substitution or 0
        return self.with_redirects(redirects, stdin, out, err, lambda i, o, e: self.call(argv, i, o, e))

    def call(self, argv, stdin, out, err):
        name = argv[0]
        if name in self.functions:
            saved, self.positional = self.positional, argv[1:]
            try:
                return self.evaluate(self.functions[name], stdin, out, err)
            finally:
                self.positional = saved
        builtin = BUILTINS.get(name)
        if builtin:
            return builtin(self, argv, stdin, out, err)
        if name in SHELLS:
            if len(argv) >= 3 and argv[1] == '-c':
                script = argv[2]
            elif len(argv) == 1 or argv[1:] == ['-s']:
                script = stdin  # the script on standard input (Ansible pipelining, a reading's batch)
            else:
                raise Unsupported('%s %s' % (name, ' '.join(argv[1:2])))
            saved = (self.variables, self.positional, self.functions, self.traps)
            self.variables, self.positional, self.functions, self.traps = {}, [], {}, []
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise Unsupported('nesting deeper than %d' % MAX_DEPTH)
                try:
                    status = self.evaluate(parse(script), '' if script is stdin else stdin, out, err)
                except Exit as stop:
                    status = stop.code
                self.run_traps(out, err)  # this shell's EXIT traps, with its variables
                return status
            finally:
                self.depth -= 1
                self.variables, self.positional, self.functions, self.traps = saved
        rc, text, error = self.commands(argv, stdin)
        out.append(text)
        err.append(error)
        return rc


def _reads_stdin(node):
    if isinstance(node, tuple) and node and node[0] == 'simple':
        words = [''.join(value for kind, value, _q in word if kind == 'lit') for word in node[2]]
        if words and words[0] in SHELLS and (len(words) == 1 or words[1] == '-s'):
            return True
        if words and words[0] in SHELLS and len(words) >= 3 and words[1] == '-c':
            try:
                return _reads_stdin(parse(words[2]))
            except Unsupported:
                return False
        if words and words[0] in STDIN_READERS and len(words) == 1 and not node[3]:
            return True
        return False
    if isinstance(node, (tuple, list)):
        return any(_reads_stdin(item) for item in node if isinstance(item, (tuple, list)))
    return False


def _echo(_shell, argv, _stdin, out, _err):
    words, newline = argv[1:], True
    if words[:1] == ['-n']:
        words, newline = words[1:], False
    out.append(' '.join(words) + ('\n' if newline else ''))
    return 0


def _printf(_shell, argv, _stdin, out, err):
    if len(argv) < 2:
        err.append('printf: usage: printf format [arguments]\n')
        return 2
    fmt, args = argv[1].replace('\\n', '\n').replace('\\t', '\t'), list(argv[2:])
    pieces = re.split(r'(%[sd%])', fmt)
    while True:
        text = []
        for piece in pieces:
            if piece == '%%':
                text.append('%')
            elif piece in ('%s', '%d'):
                value = args.pop(0) if args else ''
                text.append(str(int(value or 0)) if piece == '%d' else value)
            elif '%' in piece:
                raise Unsupported('printf format %s' % piece)
            else:
                text.append(piece)
        out.append(''.join(text))
        if not args:
            return 0


def _test(_shell, argv, _stdin, _out, _err):
    args = argv[1:-1] if argv[0] == '[' else argv[1:]
    if argv[0] == '[' and argv[-1:] != [']']:
        raise Unsupported('[ without ]')
    if len(args) == 1:
        return 0 if args[0] else 1
    if len(args) == 2 and args[0] in ('-n', '-z'):
        return 0 if bool(args[1]) == (args[0] == '-n') else 1
    if len(args) == 3 and args[1] in ('=', '!='):
        return 0 if (args[0] == args[2]) == (args[1] == '=') else 1
    if len(args) == 3 and args[1] in ('-eq', '-ne', '-lt', '-le', '-gt', '-ge'):
        left, right = int(args[0]), int(args[2])
        return 0 if {'-eq': left == right, '-ne': left != right, '-lt': left < right, '-le': left <= right,
                     '-gt': left > right, '-ge': left >= right}[args[1]] else 1
    raise Unsupported('test %s' % ' '.join(args))


def _cat(shell, argv, stdin, out, err):
    if len(argv) == 1 or argv[1:] == ['-']:
        out.append(stdin)
        return 0
    if all(path in shell.files for path in argv[1:]):
        out.append(''.join(shell.files[path] for path in argv[1:]))
        return 0
    rc, text, error = shell.commands(argv, stdin)  # files are the device's
    out.append(text)
    err.append(error)
    return rc


def _exit(shell, argv, _stdin, _out, _err):
    raise Exit(int(argv[1]) if len(argv) > 1 else shell.status)


def _shift(shell, argv, _stdin, _out, err):
    count = int(argv[1]) if len(argv) > 1 else 1
    if count > len(shell.positional):
        err.append('sh: 1: shift: can\'t shift that many\n')
        return 2
    shell.positional = shell.positional[count:]
    return 0


def _device(shell, argv, stdin, out, err):
    rc, text, error = shell.commands(argv, stdin)
    out.append(text)
    err.append(error)
    return rc


def _mktemp(shell, argv, stdin, out, err):
    """coreutils mktemp [-d]: a name under /tmp (the request's own, in memory); with a template, the device's (a file
    that outlives the request: a deploy's work directory)."""
    if [word for word in argv[1:] if word != '-d']:
        return _device(shell, argv, stdin, out, err)
    shell.temporaries += 1
    path = '/tmp/tmp.fleet%06d' % shell.temporaries
    if '-d' in argv:
        shell.directories.add(path)
    elif '/tmp' in shell.directories:
        shell.files[path] = ''
    else:
        err.append('mktemp: failed to create file via template \'/tmp/tmp.XXXXXXXXXX\': Read-only file system\n')
        return 1
    out.append(path + '\n')
    return 0


def _rm(shell, argv, stdin, out, err):
    paths = [word for word in argv[1:] if word and not word.startswith('-')]

    def in_memory(path):
        return path in shell.files or any(path == item or path.startswith(item.rstrip('/') + '/')
                                          for item in shell.directories)
    if any(not in_memory(path) for path in paths):
        return _device(shell, argv, stdin, out, err)  # the device's own files
    for path in paths:
        shell.directories.discard(path)
        for name in [name for name in shell.files if name == path or name.startswith(path.rstrip('/') + '/')]:
            del shell.files[name]
    return 0


def _seq(_shell, argv, _stdin, out, err):
    try:
        numbers = [int(word) for word in argv[1:]]
    except ValueError:
        err.append('seq: invalid argument\n')
        return 1
    first, step, last = (1, 1, numbers[0]) if len(numbers) == 1 else (numbers[0], 1, numbers[1]) if len(numbers) == 2 \
        else tuple(numbers[:3])
    out.append(''.join('%d\n' % value for value in range(first, last + (1 if step > 0 else -1), step)))
    return 0


def _base64(shell, argv, stdin, out, err):
    """coreutils base64: encode, lines of 76 characters."""
    files = [word for word in argv[1:] if not word.startswith('-')]
    if [word for word in argv[1:] if word.startswith('-')]:
        raise Unsupported('base64 %s' % ' '.join(argv[1:]))
    if files and files[0] not in shell.files:
        err.append('base64: %s: No such file or directory\n' % files[0])
        return 1
    data = base64.b64encode((shell.files[files[0]] if files else stdin).encode('utf-8', 'surrogateescape')).decode()
    out.append(''.join(data[index:index + 76] + '\n' for index in range(0, len(data), 76)))
    return 0


def _timeout(shell, argv, stdin, out, err):
    """coreutils timeout [-k DURATION] [-s SIGNAL] DURATION COMMAND...: the double's commands end at once."""
    words = argv[1:]
    while words and words[0].startswith('-'):
        words = words[2:] if words[0] in ('-k', '-s', '--kill-after', '--signal') else words[1:]
    if len(words) < 2:
        err.append('timeout: missing operand\n')
        return 125
    return shell.call(words[1:], stdin, out, err)


def _sleep(_shell, argv, _stdin, _out, _err):
    """`sleep 0` (Ansible ends a command with `&& sleep 0`); waiting longer would hold every device of the process."""
    if argv[1:] != ['0']:
        raise Unsupported('sleep %s' % ' '.join(argv[1:]))
    return 0


def _export(shell, argv, _stdin, _out, _err):
    """export NAME=VALUE...: the shell's variables (the double's commands take no environment from it)."""
    for word in argv[1:]:
        name, sep, value = word.partition('=')
        if sep:
            shell.variables[name] = value
    return 0


def _trap(shell, argv, _stdin, _out, _err):
    if argv[2:] != ['EXIT'] and argv[2:] != ['0']:
        raise Unsupported('trap on %s' % ' '.join(argv[2:]))
    shell.traps.append(argv[1])
    return 0


BUILTINS = {'echo': _echo, 'printf': _printf, 'true': lambda *_a: 0, ':': lambda *_a: 0, 'false': lambda *_a: 1,
            'test': _test, '[': _test, 'cat': _cat, 'exit': _exit, 'shift': _shift, 'wait': lambda *_a: 0,
            'mktemp': _mktemp, 'rm': _rm, 'seq': _seq, 'base64': _base64, 'timeout': _timeout, 'trap': _trap,
            'sleep': _sleep, 'export': _export}

__all__ = ['Shell', 'Unsupported', 'parse', 'tokenize']
