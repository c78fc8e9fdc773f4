# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A per-user cache of what every process would otherwise compile anew: Jinja2 templates, the intent schema's
validator, and the verdict on the shipped switch models. A fresh process (an AWX job, each ansible-playbook run)
then starts with them compiled.

Where: $AIFABRIC_CACHE_DIR, else $XDG_CACHE_HOME/aifabric.fabric, else ~/.cache/aifabric.fabric; never the output
directory nor the installed collection. AIFABRIC_CACHE_DIR=off turns it off. The directory must belong to this user
and be writable by nobody else (what is read from it is executed); otherwise, and when it is missing, read-only or
full, nothing is cached and everything is compiled as if there were no cache: it only ever costs speed.

Shipped YAML (schemas, switch models) is kept parsed, by a hash of its bytes and the Python version.

Invalidation is by content: a template's entry is found by its name and file name and used only while the source's
checksum matches (Jinja2's own bytecode check), under a namespace of the Jinja2 version, the environment's options
and the Python version; a schema's entry is found by a hash of the schema, the formats' names, the options, the
fastjsonschema version and the Python version; a verdict by a hash of the files it was given and the validating
library's version. A changed template or schema is compiled again and stored beside the old entry; entries are
small (kilobytes) and nothing removes them (delete the directory at any time).
"""

from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
import sys
import tempfile

CACHE_ENV = 'AIFABRIC_CACHE_DIR'
OFF = ('off', 'none', 'no', 'false', '0')


@functools.lru_cache(maxsize=1)
def cache_directory():
    """This user's cache directory, created if missing; None when caching is off or no safe directory exists."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None and configured.strip().lower() in OFF + ('',):
        return None
    if not configured:
        base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
        configured = os.path.join(base, 'aifabric.fabric')
    try:
        os.makedirs(configured, mode=0o700, exist_ok=True)
        info = os.stat(configured)
    except OSError:
        return None
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        return None  # another user could plant code in it
    return configured


def _path(namespace: str, key: str):
    directory = cache_directory()
    return None if directory is None else os.path.join(directory, namespace, key)


def read(namespace: str, key: str):
    """The bytes stored under namespace/key, or None."""
    path = _path(namespace, key)
    if path is None:
        return None
    try:
        with open(path, 'rb') as handle:
            return handle.read()
    except OSError:
        return None


def write(namespace: str, key: str, data: bytes) -> None:
    """Store data under namespace/key, atomically (a reader sees the old entry or the whole new one); a cache that
    cannot be written is left alone."""
    path = _path(namespace, key)
    if path is None:
        return
    temporary = None
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.tmp-')
        with os.fdopen(descriptor, 'wb') as handle:
            handle.write(data)
        os.replace(temporary, path)
        temporary = None
    except OSError:
        pass
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode('utf-8')).hexdigest()


# --------------------------------------------------------------------------------------------------- templates
def template_cache(options: dict):
    """A Jinja2 bytecode cache for an environment with these options (those that change the compiled code)."""
    import jinja2

    class TemplateBytecodeCache(jinja2.BytecodeCache):
        namespace = 'jinja2-%s' % _digest([jinja2.__version__, sys.implementation.cache_tag, options])[:16]

        def load_bytecode(self, bucket):
            data = read(self.namespace, bucket.key)
            if data is not None:
                bucket.bytecode_from_string(data)  # checks Jinja2's magic and the source's checksum

        def dump_bytecode(self, bucket):
            write(self.namespace, bucket.key, bucket.bytecode_to_string())

    return TemplateBytecodeCache()


# --------------------------------------------------------------------------------------------------- verdicts
def files_digest(paths, library: str) -> str:
    """A hash of these files' names and bytes and of the installed library that judges them (its package file's
    path, size and time: another release is another file; importing it or its metadata would cost what the cached
    verdict saves)."""
    import importlib.util
    spec = importlib.util.find_spec(library)
    try:
        info = os.stat(spec.origin)  # type: ignore[union-attr,arg-type]  # no spec or no file: caught below
        installed = [spec.origin, info.st_size, info.st_mtime_ns]  # type: ignore[union-attr]
    except (AttributeError, TypeError, OSError):
        installed = None
    digest = hashlib.sha256(json.dumps([library, installed]).encode('utf-8') + b'\0')
    for path in paths:
        with open(path, 'rb') as handle:
            digest.update(os.path.basename(path).encode('utf-8', 'surrogateescape') + b'\0' + handle.read() + b'\0')
    return digest.hexdigest()


def known_valid(namespace: str, digest: str) -> bool:
    """Whether files with this digest were found valid before (note_valid)."""
    return read(namespace, digest) is not None


def note_valid(namespace: str, digest: str) -> None:
    write(namespace, digest, b'')


# --------------------------------------------------------------------------------------------------- shipped data
def parsed(namespace: str, text: bytes, parse):
    """parse(text), kept per user under a hash of `text` and the Python version (marshal, which reads back plain data
    many times faster than a YAML parser makes it): for the collection's own files, parsed in every process."""
    key = hashlib.sha256(sys.implementation.cache_tag.encode('ascii') + b'\0' + text).hexdigest()
    stored = read(namespace, key)
    if stored is not None:
        try:
            return marshal.loads(stored)  # nosec B302: data this user's own process wrote (see cache_directory)
        except (EOFError, ValueError, TypeError):
            pass  # a damaged entry: parsed again and written anew
    data = parse(text)
    try:
        write(namespace, key, marshal.dumps(data))
    except ValueError:  # a value marshal cannot hold (a date): parsed in every process
        pass
    return data


# --------------------------------------------------------------------------------------------------- schemas
def schema_validator(schema: dict, formats: dict, **options):
    """fastjsonschema's validator of `schema` (as fastjsonschema.compile makes it), its generated code compiled once
    per user. `formats`: {name: callable}, given to the validator at each call as fastjsonschema.compile does."""
    import fastjsonschema

    namespace = 'fastjsonschema-%s-%s' % (fastjsonschema.VERSION, sys.implementation.cache_tag)
    key = _digest([schema, sorted(formats), options])
    code = None
    data = read(namespace, key)
    if data is not None:
        try:
            code = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            code = None
    if code is None:
        source = fastjsonschema.compile_to_code(schema, formats=formats, **options)
        code = compile(source, '<fastjsonschema validator %s>' % key[:12], 'exec')
        write(namespace, key, marshal.dumps(code))
    scope = {}
    exec(code, scope)  # pylint: disable=exec-used  # fastjsonschema.compile executes the same code
    return functools.partial(scope['validate'], custom_formats=formats)
