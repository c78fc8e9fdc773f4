# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Text a device gave, as a person may see it: no secret, nothing a terminal or a report interprets, a bounded length.

What a switch or a server prints is the device's, not ours. A broken or hostile one prints ESC and OSC sequences
(clear the screen, set the window title; AWX renders ANSI in job output), a CR or a newline that forges lines of a
message, bidi overrides and look-alike letters, lone surrogates (what a JSON writer prints for a byte that is not
UTF-8), megabytes, and its own secrets. Every path that shows such text to a person goes through here:

    mask(text) / mask_data(data)   every secret form the platforms declare (Platform.secrets: type-7 keys, BGP
                                   neighbour passwords, SNMP communities, TACACS+/RADIUS passkeys and secrets) and
                                   every crypt(3) hash, replaced by a placeholder; also where other text carries a
                                   form (a diff's line, a line or JSON document a message quotes, a CONFIG_DB row
                                   key, a JSON Patch of SONiC's generic config updater)
    visible(text, limit)           printable ASCII only: anything else escaped the way Python writes it (\\x1b, \\n,
                                   \\u0430, \\udcff), cut to `limit` characters saying how many more there were
                                   (printable.py: below the platform registry, for every layer)
    shown(text, limit)             both

mask_data() is applied where gathered state and switch text enter the controller (validate_gather, switch_deploy),
so nothing downstream (results, reports, -v output, custom stats) holds a secret; visible() where text leaves for a
person (the task messages, report.md, report.html, deploy errors). report.json keeps each gathered value whole
(masked), for machines.
"""

from __future__ import annotations

import json
import re

from .platforms import registered
from .printable import LIMIT, visible

MASKED = '<secret>'
HASH_MASK = '<password hash>'
# Any crypt(3) hash (`$6$salt$...`, `$y$...`, `$1$...`), also one a switch already holds.
CRYPT_HASH = re.compile(r'\$(?:1|5|6|y|2[aby]?)\$[^\s\'",]+')


# --------------------------------------------------------------------------- secrets
_COMPILED = {}


def _forms():
    """(line patterns, secret fields, fields whose entries are named by a secret, a quick test, a field pattern) of
    every platform of the registry, compiled once per registry (a test that adds a platform folder makes a new one)."""
    registry = registered()
    if _COMPILED.get('registry') is not registry:
        _COMPILED.update(registry=registry, forms=_compile([platform.secrets for platform in registry.values()]))
    return _COMPILED['forms']


# A line form's own start and end (`^\s*`, `\s*$`) also match a configuration line as other text carries it: a
# diff's -, + or <, > line, and a line quoted in a message ("CLI command 3 of 9 'tacacs-server key 7 ...' failed").
# Not after any colon: our own diff says "~user admin: password changes" (failed_step masks a device's message alone).
LINE_START = r'(?:^[-+<>]?|(?<=[\'"`]))\s*'
LINE_END = r'\s*(?=$|[\'"`])'


_CARRIED = re.compile(r'^[-+<>]|[\'"`]')  # a line that may carry a configuration line (see LINE_START)


def _anywhere(pattern):
    if pattern.startswith(r'^\s*'):
        pattern = LINE_START + pattern[len(r'^\s*'):]
    if pattern.endswith(r'\s*$'):
        pattern = pattern[:-len(r'\s*$')] + LINE_END
    return pattern


def _compile(forms):
    # (as the NOS prints them, wherever other text carries them): the second only for a line that may carry one
    lines = (tuple(re.compile(pattern) for form in forms for pattern in form.lines),
             tuple(re.compile(_anywhere(pattern)) for form in forms for pattern in form.lines))
    fields = frozenset(name.lower() for form in forms for name in form.fields)
    names = frozenset(name.lower() for form in forms for name in form.names)
    quick = _Words(fields | names | {word for form in forms for word in form.words})
    field = re.compile(r'(?P<open>(?<![\w-])["\']?(?:%s)["\']?\s*[:=]\s*)(?P<value>"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^\s,}]+)'
                       % '|'.join(re.escape(name) for name in sorted(fields, key=len, reverse=True))
                       if fields else r'(?!)', re.IGNORECASE)
    return lines, fields, names, quick, field


class _Words:
    """Whether a text may hold a secret: a '$' (a crypt hash) or one of the words of a secret form, in any case. An
    ASCII text (what switches print) by plain substring tests of its lower case: the regular expression of these
    alternatives walks a switch's configuration tens of times slower. Any other text by that expression, whose
    case-insensitive match knows every Unicode letter that matches an ASCII one (the Kelvin sign, a dotted I)."""

    def __init__(self, words):
        words = sorted(words, key=len, reverse=True)
        self.pattern = re.compile('|'.join(re.escape(word) for word in words) + r'|\$', re.IGNORECASE)
        self.word_pattern = re.compile('|'.join(re.escape(word) for word in words) or r'(?!)', re.IGNORECASE)
        lowered = {word.lower() for word in words}
        # a word that holds another ('snmp_user_auth_password', 'password') is found by that one: one pass less
        self.words = tuple(word for word in sorted(lowered) if not any(other != word and other in word for other in lowered)
                           ) if all(word.isascii() for word in words) else None

    def search(self, text) -> bool:
        return '$' in text or self.has_word(text)

    def has_word(self, text) -> bool:
        """Whether `text` holds a word of a secret form ('$' aside)."""
        if self.words is not None and text.isascii():
            lowered = text.lower()
            return any(word in lowered for word in self.words)
        return self.word_pattern.search(text) is not None


def mask(text, hashes=None, secrets=()):
    """`text` without secrets: a hash of `hashes` ({user: hash}, aifabric_switch_users) named after its variable,
    each of `secrets` (login passwords) as ********, every secret form of every platform as <secret>, any other
    crypt hash as <password hash>. Text in no secret form is returned as it is (the same object)."""
    if not text or not isinstance(text, str):
        return text
    for name, value in (hashes or {}).items():
        if value:
            text = text.replace(value, '<hash of aifabric_switch_users.%s>' % name)
    for value in secrets:
        if value:
            text = text.replace(value, '********')
    lines, fields, names, quick, field = _forms()
    if not quick.search(text):
        return text
    stripped = text.lstrip()
    if stripped[:1] in '{[':  # a JSON document (CONFIG_DB, NVUE's configuration): its structure says what is secret
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, (dict, list)):
            masked = mask_data(data)
            return text if masked is data else json.dumps(masked, indent=1)
    out, block, child = [], None, None  # a key whose entries are named by a secret: its indentation, its entries'
    for line in text.split('\n'):
        indent, key = _line_key(line)
        if block is not None and line.strip():
            if indent <= block:
                block = None
            elif key is not None and indent == (child if child is not None else indent):
                child = indent
                out.append(_ENTRY.sub(r'\1\2%s\2' % MASKED, line, count=1))
                continue
        if key is not None and key.lower() in names and re.search(r':\s*\{?\s*$', line):
            block, child = indent, None
        if not quick.search(line):  # no secret word and no '$': nothing to mask on this line
            out.append(line)
            continue
        line = CRYPT_HASH.sub(HASH_MASK, line) if '$' in line else line
        if quick.has_word(line):  # no form matches a line without one of its words (a shell command's $n has none)
            for pattern in lines[1] if _CARRIED.search(line) else lines[0]:
                line = pattern.sub(_masker, line)
            line = field.sub(_field_masker, line)
            if '"path"' in line:
                line = _PATCH_PATH.sub(_patch_masker(fields, names), line)
            if '|' in line:
                line = _row_keys(names).sub(_masker, line)
        out.append(_embedded_json(line) if block is None and ('{' in line or '[' in line) else line)
    return '\n'.join(out)


_DECODER = json.JSONDecoder()


def _embedded_json(line, tries=8):
    """`line` with a JSON document it quotes masked ("the switch said: {"SNMP_COMMUNITY": {...}}"); a document that
    is the whole text was read as one above, a line of an indented one is masked by its key."""
    start = 0
    for _try in range(tries):
        starts = [index for index in (line.find('{', start), line.find('[', start)) if index >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            data, end = _DECODER.raw_decode(line, start)
        except ValueError:
            start += 1
            continue
        masked = mask_data(data) if isinstance(data, (dict, list)) else data
        if masked is not data:
            text = json.dumps(masked)
            line = line[:start] + text + line[end:]
            end = start + len(text)
        start = end
    return line


_ROW_KEYS = {}


def _row_keys(names):
    """A CONFIG_DB row key whose table is named by a secret: `SNMP_COMMUNITY|NAME` (sonic-db-cli, redis, a deploy
    diff's rows)."""
    if names not in _ROW_KEYS:
        _ROW_KEYS[names] = re.compile(r'(?<!\w)(?:%s)\|(?P<secret>[^\s"\'|,{}\]]+)' % '|'.join(
            re.escape(name) for name in sorted(names)) if names else r'(?!)', re.IGNORECASE)
    return _ROW_KEYS[names]


# A JSON Patch operation (RFC 6902), as SONiC's generic config updater prints the patch it applies:
# {"op": "add", "path": "/TACPLUS_SERVER/10.1.1.1/passkey", "value": "K"}, {"path": "/SNMP_COMMUNITY/NAME", ...}.
_PATCH_PATH = re.compile(r'(?P<path>"path"\s*:\s*"/[^"]*")(?P<rest>\s*,\s*"value"\s*:\s*'
                         r'(?P<value>"(?:[^"\\]|\\.)*"|[^\s,}\]]+))?')


def _patch_masker(fields, names):
    def masked(match):
        quoted = match.group('path')
        opening = quoted[:quoted.index('"/') + 1]
        parts = quoted[len(opening):-1].split('/')
        for index in range(1, len(parts) - 1):
            if parts[index].lower() in names and not parts[index + 1].startswith(_PLACEHOLDERS):
                parts[index + 1] = MASKED
        found = opening + '/'.join(parts) + '"'
        rest = match.group('rest')
        if rest is not None and parts[-1].lower() in fields:
            value = match.group('value')
            rest = rest[:len(rest) - len(value)] + ('"%s"' % MASKED if value[:1] == '"' else MASKED)
        return found + (rest or '')
    return masked


_ENTRY = re.compile(r'^([+-]?\s*)(["\']?)[^\s"\':]+\2(?=\s*:)')
_KEY = re.compile(r'^[+-]?(\s*)["\']?([^\s"\':]+)["\']?\s*:')


def _line_key(line):
    """(indentation, key) of a YAML or indented-JSON line, a diff's +/- marker left aside; key None: not a key line."""
    match = _KEY.match(line)
    if match is None:
        return len(line) - len(line.lstrip(' +-')), None
    return len(match.group(1)), match.group(2)


_PLACEHOLDERS = (MASKED, HASH_MASK, '<hash of ', '********')


def _masker(match) -> str:
    start, end = match.span('secret')
    if match.string.startswith(_PLACEHOLDERS, start):
        return match.group(0)  # masked already (a crypt hash, or by another platform's form of the same line)
    whole, offset = match.group(0), match.start()
    return whole[:start - offset] + MASKED + whole[end - offset:]


def _field_masker(match) -> str:
    value = match.group('value')
    if value.strip('"\'').startswith(_PLACEHOLDERS):
        return match.group(0)
    return match.group('open') + ('"%s"' % MASKED if value[:1] == '"' else "'%s'" % MASKED if value[:1] == "'" else MASKED)


def mask_data(data, hashes=None, secrets=()):
    """`data` (gathered state: mappings, lists, text) with every secret masked: text as mask() does, the value of a
    secret field, the names of the entries of a community list (SNMP_COMMUNITY, readonly-community), and mapping keys
    that are configuration lines (EOS's running-config tree). The parts without a secret are the same objects."""
    return _masked_part(data, hashes, secrets, _forms())


# A mapping or list of more parts than this is first searched whole (one written-out text): most have no secret word.
# One of fewer is searched part by part at once (a reading: a few outputs, one of which echoes a command with '$').
_FEW_PARTS = 64


def _masked_part(data, hashes, secrets, forms, searched=False):
    """mask_data() of `data`; `searched`: its parent found a secret word in it (it is searched part by part)."""
    if isinstance(data, str):
        return mask(data, hashes, secrets)
    if not data or not isinstance(data, (dict, list)):
        return data
    _lines, fields, names, quick, _field = forms
    by_part = searched or hashes or secrets or len(data) <= _FEW_PARTS
    if not by_part and not _may_hold_secret(quick, data):
        return data  # nothing here can be a secret (no secret word, no '$' in any key or value)

    def part(value):  # each part searched once: kept whole without a secret word, else masked one level down
        if isinstance(value, (dict, list)) and not hashes and not secrets and not _may_hold_secret(quick, value):
            return value
        return _masked_part(value, hashes, secrets, forms, searched=True)
    if isinstance(data, dict):
        if isinstance(data.get('path'), str) and data['path'].startswith('/'):  # a JSON Patch operation
            data = _patch_operation(data, fields, names)
        masked, changed = {}, False
        for number, (key, value) in enumerate(data.items(), 1):
            name = str(key).lower()
            new_key = mask(key, hashes, secrets) if isinstance(key, str) else key
            if name in fields and isinstance(value, (str, int)) and value != '':
                new_value = MASKED
            elif name in names and isinstance(value, dict):
                new_value = {'%s %d' % (MASKED, index): _masked_part(entry, hashes, secrets, forms)
                             for index, entry in enumerate(value.values(), 1)} if value else value
            else:
                new_value = part(value)
            if new_key in masked:
                new_key = '%s %d' % (new_key, number)  # two lines that differed only in their secret
            changed = changed or new_key is not key or new_value is not value
            masked[new_key] = new_value
        return masked if changed else data
    masked_list = [part(value) for value in data]
    return data if all(new is old for new, old in zip(masked_list, data)) else masked_list


def _patch_operation(operation, fields, names):
    parts = operation['path'].split('/')
    changed = dict(operation)
    for index in range(1, len(parts) - 1):
        if parts[index].lower() in names and not parts[index + 1].startswith(_PLACEHOLDERS):
            parts[index + 1] = MASKED
    changed['path'] = '/'.join(parts)
    if parts[-1].lower() in fields and isinstance(operation.get('value'), (str, int)):
        changed['value'] = MASKED
    return changed if changed != operation else operation


def _may_hold_secret(quick, data) -> bool:
    """Whether a key or value of `data` may be a secret (`quick`: the words of every secret form and '$'). Text is
    searched as it is; a mapping or list written out at once (JSON, in C: a reading's tree of tens of thousands of
    keys and values is one search, not one per key and value), its text not escaped (a non-ASCII letter stays one
    the case-insensitive search knows: the Kelvin sign of 'pass\u212aey'). Never misses what a search of each key
    and value would find: no word of a form holds JSON's punctuation or a character JSON escapes."""
    if isinstance(data, str):
        return quick.search(data)
    return quick.search(_as_text(data))


def _as_text(data) -> str:
    """Every key and value of `data` in one text (a part JSON cannot write, such as a set, gives '$': look inside)."""
    try:
        return json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return '$'


def failed_step(error, limit=LIMIT, hashes=None, secrets=()) -> str:
    """'<device>: <step> failed: <what the device said>' of a TransportError, its own text masked and made visible
    before our words are put in front: the device's first line starts the line there, as a form expects."""
    return '%s: %s failed: %s' % (error.device, error.step, shown(error.message, limit, hashes=hashes, secrets=secrets))


def shown(text, limit=LIMIT, lines=False, hashes=None, secrets=()) -> str:
    """Device text as a person sees it: masked, then visible."""
    return visible(mask(text, hashes, secrets) if isinstance(text, str) else text, limit, lines)


__all__ = ['mask', 'mask_data', 'visible', 'shown', 'failed_step', 'MASKED', 'HASH_MASK', 'LIMIT', 'CRYPT_HASH']
