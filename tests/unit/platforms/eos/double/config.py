"""An EOS configuration as a tree of sections, changed line by line through the CLI mode machine.

EOS resolves each configuration line against the current mode and then its parent modes, so flat input (what
napalm sends: every line stripped of its indentation) and indented files (`configure replace`) build the same
tree. The running-config text is rendered from the tree with EOS's 3-space indentation and `!` separators.
"""

from __future__ import annotations

import copy
import difflib

from tests.unit.platforms.eos.double import grammar


class CommandRejected(Exception):
    """A line EOS would refuse: `errors` is the per-command error list of eAPI's error object."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


class Node:
    """One configuration line and, for a section, the lines inside it."""

    def __init__(self, words, key=None, mode=None):
        self.words = list(words)
        self.key = key if key is not None else tuple(words)
        self.mode = mode  # the sub-mode this line opens, if any
        self.children = []

    @property
    def line(self):
        return ' '.join(self.words)

    def child(self, key):
        for node in self.children:
            if node.key == key:
                return node
        return None

    def find(self, *prefix):
        """Children whose words start with `prefix`."""
        return [node for node in self.children if node.words[:len(prefix)] == list(prefix)]

    def set(self, words, key, mode):
        existing = self.child(key)
        if existing is not None and existing.mode and mode:
            return existing  # re-entering a section keeps its content
        if existing is not None:
            existing.words, existing.mode = list(words), mode
            return existing
        node = Node(words, key, mode)
        self.children.append(node)
        return node

    def remove(self, words):
        """`no X`: drop lines (and sections) that start with X or whose identity X starts with."""
        def doomed(node):
            plain = node.words[1:] if node.words[:1] == ['no'] else node.words
            return plain[:len(words)] == words or (len(node.key) < len(words) and list(node.key) == words[:len(node.key)])
        self.children = [node for node in self.children if not doomed(node)]


class Config:
    """The whole configuration (the root node is config mode)."""

    def __init__(self, root=None):
        self.root = root or Node([], (), 'config')

    def copy(self):
        return Config(copy.deepcopy(self.root))

    @classmethod
    def parse(cls, text):
        """Build a configuration from running-config text (indentation ignored, like `configure replace`)."""
        config = cls()
        editor = config.editor()
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith('!'):
                continue
            if line == 'end':
                break
            try:
                editor.apply(line)
            except CommandRejected as exc:
                raise CommandRejected('line %d: %s: %s' % (number, line, exc.error)) from None
        return config

    def editor(self):
        return Editor(self)

    def render(self):
        """The body of `show running-config` (no header comments)."""
        out = []
        for node in sorted(self.root.children, key=lambda node: grammar.sort_key(node.words)):
            if node.children or node.mode:
                if out and out[-1] != '!':
                    out.append('!')
                out.extend(_render_section(node, 0))
                out.append('!')
            else:
                out.append(node.line)
        if not out or out[-1] != '!':
            out.append('!')
        out.append('end')
        return '\n'.join(out) + '\n'

    # Queries used by the show commands.
    def sections(self, *prefix):
        return self.root.find(*prefix)

    def section(self, *words):
        nodes = self.root.find(*words)
        return nodes[0] if nodes else None


def _render_section(node, depth):
    pad = '   ' * depth
    out = [pad + node.line]
    previous_block = False
    for child in node.children:
        if child.children or child.mode:
            out.append(pad + '   !')
            out.extend(_render_section(child, depth + 1))
            previous_block = True
        else:
            if previous_block:
                out.append(pad + '   !')
                previous_block = False
            out.append(pad + '   ' + child.line)
    return out


class Editor:
    """Applies configuration lines to a Config the way the EOS CLI does (a stack of modes)."""

    def __init__(self, config):
        self.config = config
        self.stack = [config.root]

    def apply(self, line):
        """Apply one line; raise CommandRejected (leaving the config untouched) when EOS would refuse it."""
        words = line.split()
        if words == ['exit']:
            if len(self.stack) > 1:
                self.stack.pop()
            return
        for depth in range(len(self.stack) - 1, -1, -1):
            mode = self.stack[depth].mode
            pattern, _unused = grammar.lookup(mode, words)
            if pattern is not None:
                conflict = grammar.conflicts(self.stack[depth], words, self.config.root)
                if conflict:
                    raise CommandRejected(conflict)
                del self.stack[depth + 1:]
                self._store(self.stack[-1], pattern, words)
                return
        # Report against the current mode and its parents, the furthest token any of them accepted.
        worst = max((grammar.lookup(node.mode, words)[1] for node in self.stack), key=lambda found: found[1])
        kind, index = worst
        if kind == 'incomplete':
            raise CommandRejected('Incomplete command')
        raise CommandRejected("Invalid input (at token %d: '%s')" % (index, words[index]))

    def _store(self, section, pattern, words):
        if words[0] in ('no', 'default') and not pattern.negative:
            section.remove(words[1:])
            return
        # `shutdown` and `no shutdown` share an identity (`@N`), so one replaces the other in place.
        key = grammar.identity(pattern, words)
        node = section.set(words, key, pattern.opens)
        if pattern.opens:
            self.stack.append(node)


def unified_diff(old_body, new_body, new_name):
    """`show session-config named X diffs`: a unified diff of running-config against the session."""
    lines = difflib.unified_diff(old_body.splitlines(), new_body.splitlines(),
                                 'system:/running-config', 'session:/%s-session-config' % new_name, lineterm='')
    return '\n'.join(lines) + '\n' if old_body != new_body else ''
