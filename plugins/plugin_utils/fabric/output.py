# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a render's files into a staging generation and switch it into place only when it is complete.

Layout, for dest = out/lab:

    out/lab -> .lab.generations/g000012     symlink, replaced atomically (rename(2)) when a render completes
    out/.lab.generations/g000012/           a complete generation: the files and manifest.json
    out/.lab.generations/g000012/configs/leaf001 -> ../../store/g000009/configs/leaf001
    out/.lab.generations/store/g000009/configs/leaf001/   a device's files, as generation g000009 wrote them
    out/.lab.generations/g000013.partial-PID/   a render in progress, or killed: never pointed at, removed by the next
    out/.lab.generations/g000010.trash-PID/ a generation past `keep`, being deleted in the background
    out/.lab.lock                           fcntl lock: one render into out/lab at a time

A reader of out/lab always sees one complete generation: the previous one until the new one is finished.
Each device's directory (configs/<device>) is written once, into store/<the generation that wrote it>, and every
generation links to it until the device changes: a one-device change on a fabric of thousands of devices writes
that device's files and makes no inode per unchanged device (it takes over the links directory of the generation it
retires and replaces the links that differ; a link the current generation has is hard-linked), never copies a
directory. Other files that did not change are hard links to the previous generation. A device directory that no
kept generation links to any more is deleted with the generations past `keep`, in the background. manifest.json
lists the sha256 of every file under the render roots and marks the generation complete; verify() checks it.

Interface (also what a parallel renderer builds on):

    with StagedOutput(dest, check_mode=False, lock_timeout=300) as output:
        output.put('configs/leaf001/frr.conf', text)      # any number of times, any order
        summary = output.finish(roots=('configs', 'docs', 'k8s'), prune=('configs', 'docs', 'k8s'))

Forked worker processes may put() too: prepare_workers() before the fork, start_worker() in each worker,
take_changes() after a worker's puts and adopt() of those changes in the parent (render.render_into does this).

Leaving the block without finish() (an exception, a failed render) calls abort(): the staging directory is
removed and dest is left exactly as it was. put() refuses any path that is absolute, contains '..', control
characters or empty parts, or resolves (through symlinks) outside the output directory, whatever validated it
before. The module needs only the standard library (and jsontext beside it).

What is not the collection's is never lost: a non-empty directory that no render made is refused unless the caller
names it (take_over), and then its files are carried into every generation; only files a manifest lists as the
render's own are ever pruned. A planted .<name>.generations link is refused, not followed. Every file-system error
(EPERM, EROFS, ENOSPC, ...) is an OutputError naming the path. Files put with private=True (they carry password
hashes) are 0600.
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import hashlib
import itertools
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import time
import unicodedata

from . import jsontext

MANIFEST = 'manifest.json'
# Where a render puts what (the deploy reads the same places): <dest>/configs/<device>/<file>, the files of one device;
# <dest>/docs/..., its page and the fabric's documentation.
CONFIGS = 'configs'
DOCS = 'docs'
MANIFEST_FORMAT = 1
GENERATION = re.compile(r'^g(\d{6,})$')
# Directories directly under these roots (a device's configs/<device>) are shared between generations: written once
# into SHARED/<generation>/<root>/<name> and linked from each generation as <root>/<name> -> ../../SHARED/....
SHARED_ROOTS = (CONFIGS,)
SHARED = 'store'
SHARED_LINK = re.compile(r'^\.\./\.\./%s/(g\d{6,})/([^/]+)/([^/]+)$' % SHARED)
PARTIAL_SUFFIX = '.partial'
TRASH_SUFFIX = '.trash'  # a generation past `keep`, renamed away and being deleted
FILE_MODE = 0o644
PRIVATE_FILE_MODE = 0o600  # files that carry secrets (password hashes): readable by their owner only
NAME_MAX = 255  # bytes per path component (Linux)
PATH_MAX = 4096
LOCK_POLL_SECONDS = 0.2
# Control, format (bidi overrides, zero-width), separator and surrogate characters: never in a file name.
_INVISIBLE = frozenset(('Cc', 'Cf', 'Cs', 'Zl', 'Zp'))
_TRASH_NUMBERS = itertools.count()


class OutputError(Exception):
    """The output directory cannot be written safely; the message says why and what to do."""


class OutputBusy(OutputError):
    """Another render holds the lock of the output directory."""


def _failed(exc, path):
    """The OutputError for a file-system error: the path it concerns and the system's reason, one sentence."""
    return OutputError('cannot write %s: %s' % (exc.filename or path, exc.strerror or exc))


def check_relative(relative) -> str:
    """`relative` if it is a safe path inside the output directory, else OutputError naming the problem."""
    if not isinstance(relative, str) or not relative:
        raise OutputError('refusing to write %r: an output file needs a non-empty relative path' % (relative,))
    problem = None
    ascii_only = relative.isascii()  # the usual case: one character = one byte, control characters only
    parts = relative.split('/')
    if not relative.isprintable() if ascii_only else any(unicodedata.category(char) in _INVISIBLE for char in relative):
        problem = 'it contains control or invisible formatting characters'
    elif relative[0] == '/' or '\\' in relative:
        problem = 'it is absolute or contains a backslash'
    elif '' in parts or '.' in parts or '..' in parts:
        problem = "it has an empty, '.' or '..' part"
    elif max(map(len, parts) if ascii_only else (len(part.encode('utf-8', 'surrogatepass')) for part in parts)) > NAME_MAX:
        problem = 'a part is longer than %d bytes' % NAME_MAX
    elif (len(relative) if ascii_only else len(relative.encode('utf-8', 'surrogatepass'))) > PATH_MAX // 2:
        problem = 'it is longer than %d bytes' % (PATH_MAX // 2)
    if problem:
        raise OutputError('refusing to write %r: %s; every output file must stay inside the output directory'
                          % (relative, problem))
    return relative


def _umask() -> int:
    """This process's umask, from /proc/self/status (Linux 4.7+) since os.umask() can only read it by changing it;
    where it cannot be read, 0o777 (assume it removes every bit)."""
    try:
        with open('/proc/self/status', encoding='ascii', errors='replace') as status:
            for line in status:
                if line.startswith('Umask:'):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o777


def _inside(path, root) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def inventory_conflict(directory, inventory_sources) -> str:
    """Why writing into `directory` would break an inventory given with -i ('' when it would not).

    A directory source: Ansible reads every file under it, so nothing may be written there. A file source (AWX allows
    one): Ansible reads it and the group_vars/host_vars next to it, so neither its directory nor those may be an
    output. And no output directory may hold a source: taking it over would move the inventory away."""
    resolved = os.path.realpath(directory)
    for source in inventory_sources or []:
        if not isinstance(source, str) or not os.path.exists(source):
            continue  # host lists ('a,b,') and missing paths make Ansible read no file
        real = os.path.realpath(source)
        if os.path.isdir(real):
            if _inside(resolved, real):
                return 'is inside the inventory directory %s. Ansible reads every file there as an inventory source' % real
        else:
            home = os.path.dirname(real)
            if resolved == home or any(_inside(resolved, os.path.join(home, name)) for name in ('group_vars', 'host_vars')):
                return ('is the directory of the inventory file %s, or its group_vars or host_vars, which Ansible reads '
                        'with it' % real)
        if _inside(real, resolved):
            return 'holds the inventory source %s; rendering there would take the inventory over' % real
    return ''


def installed_collection(path):
    """(namespace.name, root) of the installed collection `path` lies in, or None. ansible-galaxy installs a collection
    as <dir>/ansible_collections/<namespace>/<name> with its MANIFEST.json and FILES.json (a source checkout has
    neither): files written there change the installed collection (`ansible-galaxy collection verify` fails) and an
    upgrade deletes them."""
    current = os.path.realpath(path)
    while True:
        parent, name = os.path.split(current)
        grandparent, namespace = os.path.split(parent)
        if (os.path.basename(grandparent) == 'ansible_collections' and os.path.isfile(os.path.join(current, 'MANIFEST.json'))
                and os.path.isfile(os.path.join(current, 'FILES.json'))):
            return '%s.%s' % (namespace, name), current
        if parent == current:
            return None
        current = parent


def installed_collection_conflict(directory) -> str:
    """Why `directory` is no place for generated files because it lies in an installed collection ('' when not)."""
    found = installed_collection(directory)
    if not found:
        return ''
    return ('is inside the installed collection %s (%s): files written there change the collection (ansible-galaxy '
            'collection verify fails) and its next upgrade deletes them' % found)


# Where generated files never go unless the user says so (allow_system_dir): the trees of the operating system
# (Filesystem Hierarchy Standard 3.0, https://refspecs.linuxfoundation.org/FHS_3.0/fhs/index.html: /etc host
# configuration, /usr, /boot, /dev, /proc, /sys, /run, and /bin, /sbin, /lib* which are /usr on merged systems), and
# the directories that hold everyone's directories (the root, /home, /var, ...) themselves: a render into /var makes
# /var/<fabric>, one into /etc makes /etc/<fabric>.
SYSTEM_TREES = ('/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys',
                '/usr')
SYSTEM_HOLDERS = ('/', '/home', '/media', '/mnt', '/opt', '/root', '/srv', '/tmp', '/var', '/var/cache', '/var/lib',
                  '/var/log', '/var/spool', '/var/tmp')


def system_directory(directory) -> str:
    """Why `directory` is a system directory ('' when it is not), through symbolic links (/lib is /usr/lib)."""
    resolved = os.path.realpath(directory)
    for tree in SYSTEM_TREES:
        if _inside(resolved, os.path.realpath(tree)) or _inside(os.path.abspath(directory), tree):
            return 'is under %s, a directory of the operating system' % tree
    holders = {os.path.realpath(path): path for path in SYSTEM_HOLDERS + (os.path.expanduser('~'),)}
    if resolved in holders:
        return 'is %s, which holds the directories of the system or of its users' % holders[resolved]
    return ''


def sha256_file(path) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for block in iter(lambda: handle.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(directory):
    """The manifest of a generation directory, or None when it has none (or an unreadable one)."""
    try:
        with open(os.path.join(directory, MANIFEST), encoding='utf-8') as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get('files'), dict) else None


def verify(dest) -> list:
    """Problems of the output at `dest` (empty list = complete and every file matches its sha256)."""
    directory = os.path.realpath(dest)
    manifest = read_manifest(directory)
    if manifest is None:
        return ['%s has no readable %s' % (dest, MANIFEST)]
    problems = [] if manifest.get('complete') is True else ['%s is not marked complete' % MANIFEST]
    for relative, digest in sorted(manifest['files'].items()):
        path = os.path.join(directory, relative)
        if not os.path.isfile(path):
            problems.append('%s is missing' % relative)
        elif sha256_file(path) != digest:
            problems.append('%s does not match its sha256' % relative)
    return problems


class StagedOutput:
    """One render into `dest`: put() files, then finish() switches them into place, or abort() leaves dest as it was.

    check_mode: compare only; nothing is created or written (a shared lock is taken only if the lock file exists).
    lock_timeout: seconds to wait for another render into the same dest before failing with OutputBusy.
    keep: complete generations kept (the current one and keep - 1 previous ones).
    on_change(relative, old_bytes_or_None, new_bytes): called for every file whose content changes (for diffs).
    take_over: dest may be a non-empty directory that no render made (the caller named it): its files are kept.
    """

    def __init__(self, dest, check_mode=False, lock_timeout=300.0, keep=2, on_change=None, take_over=False):
        self.dest = os.path.abspath(dest)
        parent, name = os.path.split(self.dest)
        if not name:
            raise OutputError('dest %s names no directory' % dest)
        self.parent = parent
        self.name = name
        self.generations = os.path.join(parent, '.%s.generations' % name)
        self.lock_path = os.path.join(parent, '.%s.lock' % name)
        self.check_mode = check_mode
        self.lock_timeout = lock_timeout
        self.keep = max(1, keep)
        self.on_change = on_change
        self.take_over = take_over
        self.files = {}  # relative -> sha256 of everything put()
        self.written = {}  # relative paths whose content changed (or that are new), in put() order
        self.unchanged = 0
        self.removed = []
        self.generation = None
        self._lock = None
        self._current = None  # directory holding the complete output now (a generation or a plain directory)
        self._rendered = {}  # relative -> sha256 of the files the current output's manifest lists: the render's own
        self.previous_meta = {}  # the meta of the current output's manifest (what it was rendered from)
        self._staging = None
        self._staged = set()  # relative paths written into the staging directory
        self._real_dirs = {}
        self.shared = os.path.join(self.generations, SHARED)
        self._group = None  # store/<generation>: the device directories this render writes
        self._shared_real = None  # realpath of self.shared: where a generation's device links may lead
        self._units = set()  # shared directories (configs/<device>) this render made: written, or to be filled
        self._current_links = set()  # the links to shared directories the current generation has
        self._old_dirs = {}  # relative directory -> its directory in the current output (None: not there)
        self._umask = _umask()  # a mode the umask strips bits from is set again with fchmod
        self._done = False
        self._opened = False
        self._changes = []  # in a worker process: (relative, old, new) of changed files, for the parent's on_change

    # ------------------------------------------------------------------ context
    def __enter__(self):
        if not self._opened:
            self.open()
        return self

    def __exit__(self, kind, value, traceback):
        if not self._done:
            self.abort()
        return False

    def open(self):
        """Take the lock (waiting up to lock_timeout) and find the current output; returns self."""
        self._acquire_lock()
        self._opened = True
        try:
            self._check_generations()
            self._shared_real = os.path.realpath(self.shared)
            self._current = self._current_directory()
            previous = (read_manifest(self._current) or {}) if self._current else {}
            self._rendered = previous.get('files', {})
            self.previous_meta = previous.get('meta') or {}
            if not self.check_mode:
                self._remove_partials()
        except OSError as exc:
            self._release_lock()
            raise _failed(exc, self.dest) from None
        except BaseException:
            self._release_lock()
            raise
        return self

    # ------------------------------------------------------------------ lock
    def _acquire_lock(self):
        if self.check_mode:
            if not os.path.exists(self.lock_path):
                return  # nothing was ever rendered here: nothing can change under us, and nothing may be created
            flags, mode = os.O_RDONLY, fcntl.LOCK_SH
        else:
            try:
                os.makedirs(self.parent, exist_ok=True)
            except OSError as exc:
                raise OutputError('cannot create the directory %s: %s' % (self.parent, exc.strerror)) from None
            flags, mode = os.O_RDWR | os.O_CREAT, fcntl.LOCK_EX
        try:
            handle = os.open(self.lock_path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OutputError('cannot open the lock file %s: %s' % (self.lock_path, exc.strerror)) from None
        deadline = time.monotonic() + max(0.0, self.lock_timeout)
        while True:
            try:
                fcntl.flock(handle, mode | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(handle)
                    raise OutputError('cannot lock %s: %s' % (self.lock_path, exc.strerror)) from None
            if time.monotonic() >= deadline:
                holder = self._lock_holder(handle)
                os.close(handle)
                raise OutputBusy('another render into %s is running%s; waited %g s for it (lock file %s). Wait for it '
                                 'to finish, or raise the lock timeout.'
                                 % (self.dest, holder, self.lock_timeout, self.lock_path))
            time.sleep(LOCK_POLL_SECONDS)
        self._lock = handle
        if not self.check_mode:
            os.ftruncate(handle, 0)
            os.pwrite(handle, ('pid %d on %s since %s\n' % (os.getpid(), socket.gethostname(), _now())).encode(), 0)

    @staticmethod
    def _lock_holder(handle):
        try:
            text = os.pread(handle, 200, 0).decode('utf-8', 'replace').strip()
        except OSError:
            return ''
        return ' (%s)' % text if text else ''

    def _release_lock(self):
        if self._lock is not None:
            if not self.check_mode:
                os.ftruncate(self._lock, 0)
            os.close(self._lock)  # closing releases the flock
            self._lock = None

    # ------------------------------------------------------------------ directories
    def _check_generations(self):
        """The generations live in a plain directory next to dest: a link planted there would make the render write
        into, and clean up, a directory elsewhere."""
        try:
            mode = os.lstat(self.generations).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise OutputError('%s is a symlink (to %s); the render keeps its generations in a plain directory there '
                              'and does not follow links: remove it' % (self.generations, os.readlink(self.generations)))
        if not stat.S_ISDIR(mode):
            raise OutputError('%s is not a directory; the render keeps its generations there: remove it or choose '
                              'another dest' % self.generations)
        try:
            mode = os.lstat(self.shared).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(mode):
            raise OutputError('%s is not a plain directory (a symlink or a file); the render keeps the devices\' '
                              'directories there and does not follow links: remove it' % self.shared)

    def _current_directory(self):
        """The directory that holds the complete output now, or None when dest does not exist yet."""
        if os.path.islink(self.dest):
            target = os.path.realpath(self.dest)
            if (os.path.dirname(target) != os.path.realpath(self.generations)
                    or not GENERATION.match(os.path.basename(target))):
                raise OutputError('dest %s is a symlink to %s, which is not an output generation of this collection; '
                                  'remove the symlink or choose another dest' % (self.dest, os.readlink(self.dest)))
            if not os.path.isdir(target):
                raise OutputError('dest %s points at %s, which does not exist; remove the dangling symlink'
                                  % (self.dest, target))
            return target
        if os.path.isdir(self.dest):
            directory = os.path.realpath(self.dest)
            if not self.take_over and (read_manifest(directory) or {}).get('complete') is not True:
                found = _some_files(directory)
                if found:
                    raise OutputError(
                        'dest %s is a directory that no render made (it holds %s); refusing to take it over, its files '
                        'could be lost. Choose another directory, or set take_over to this directory to render into it '
                        'and keep its files (render option take_over, playbook variable aifabric_render_take_over)'
                        % (self.dest, ', '.join(found)))
            return directory  # a render copied as a plain directory, an empty one, or one the caller named
        if os.path.lexists(self.dest):
            raise OutputError('dest %s exists and is not a directory' % self.dest)
        return None

    def _remove_partials(self):
        """Remove what renders that were killed left behind (we hold the lock: none is running)."""
        prefix = '.%s.link-' % self.name
        for name in os.listdir(self.parent):
            if name.startswith(prefix) and os.path.islink(os.path.join(self.parent, name)):
                os.unlink(os.path.join(self.parent, name))
        try:
            names = os.listdir(self.generations)
        except FileNotFoundError:
            return
        # Deleted in the background like trimmed generations: a tree that a killed render or a deletion still under
        # way left behind must not make this render wait. Renamed first, so that no name is reused while it goes.
        leftovers = []
        for name in names:
            if PARTIAL_SUFFIX in name or TRASH_SUFFIX in name:
                leftovers.append(self._to_trash(name))
        # A killed render's shared directories: a generation number no complete generation reached (numbers only grow;
        # older groups hold directories that kept generations link to).
        newest = max((int(match.group(1)) for match in map(GENERATION.match, names) if match), default=0)
        try:
            groups = os.listdir(self.shared)
        except FileNotFoundError:
            groups = []
        for name in groups:
            match = GENERATION.match(name)
            if match and int(match.group(1)) > newest:
                leftovers.append(self._to_trash(os.path.join(SHARED, name)))
        leftovers = [path for path in leftovers if path]
        if leftovers:
            _remove_in_background(leftovers, self.shared)

    def _to_trash(self, relative):
        """Rename generations/`relative` out of the way of the names renders use; its new path (None: gone)."""
        source = os.path.join(self.generations, relative)
        if TRASH_SUFFIX in os.path.basename(relative):
            return source  # already renamed; its deletion may still be under way
        target = os.path.join(self.generations, '%s%s-%d-%d' % (
            relative.replace('/', '-'), TRASH_SUFFIX, os.getpid(), next(_TRASH_NUMBERS)))
        try:
            os.rename(source, target)
        except FileNotFoundError:
            return None
        return target

    def _next_generation(self):
        numbers = [int(match.group(1)) for match in map(GENERATION.match, os.listdir(self.generations)) if match]
        return 'g%06d' % (max(numbers, default=0) + 1)

    def _staging_directory(self):
        if self._staging is None:
            os.makedirs(self.generations, exist_ok=True)
            self.generation = self._next_generation()
            self._group = os.path.join(self.shared, self.generation)
            self._staging = os.path.join(self.generations, '%s%s-%d' % (self.generation, PARTIAL_SUFFIX, os.getpid()))
            os.mkdir(self._staging)
            self._staging_real = os.path.realpath(self._staging)
        return self._staging

    def _unit_directory(self, unit):
        """The directory this render writes the shared directory `unit` (configs/<device>) into: made under
        store/<generation>/ and linked from the staging generation (one mkdir and one symlink per device)."""
        staging = self._staging_directory()
        key = ('unit', unit)
        real = self._real_dirs.get(key)
        if real is not None:
            return real
        os.makedirs(self._group, exist_ok=True)  # the store (and this render's group in it): plain directories
        real = self._ensure_directory(self._group, self._group, unit)
        root, _unused, name = unit.partition('/')
        link = os.path.join(self._ensure_directory(staging, self._staging_real, root), name)
        target = _shared_link(self.generation, unit)
        try:
            os.symlink(target, link)
        except FileExistsError:
            if not os.path.islink(link) or os.readlink(link) != target:
                raise OutputError('refusing to write into %s: it is not a plain directory of the output (a link or a '
                                  'file), so it could lead outside the output directory' % unit) from None
        self._units.add(unit)
        self._real_dirs[key] = real
        return real

    def _ensure_directory(self, root, real_root, relative_dir):
        """Create `relative_dir` under `root` one component at a time, refusing a component that is not a plain
        directory (a planted link or file), so nothing resolves outside the root; two system calls per directory."""
        key = (root, relative_dir)
        real = self._real_dirs.get(key)
        if real is not None:
            return real
        if not relative_dir:
            real = real_root
        else:
            parent, name = os.path.split(relative_dir)
            real = os.path.join(self._ensure_directory(root, real_root, parent), name)
            try:
                os.mkdir(real)  # made here: a plain directory, nothing to check
            except FileExistsError:
                if not stat.S_ISDIR(os.lstat(real).st_mode):
                    raise OutputError('refusing to write into %s: it is not a plain directory of the output (a link '
                                      'or a file), so it could lead outside the output directory' % relative_dir)
        self._real_dirs[key] = real
        return real

    # ------------------------------------------------------------------ files
    def _old_directory(self, relative_dir):
        """The directory of the current output that holds `relative_dir`, or None when it has none; one lstat per
        directory (cached), and a symlink is followed only when it stays inside the current output."""
        if relative_dir in self._old_dirs:
            return self._old_dirs[relative_dir]
        if not relative_dir:
            found = self._current
        else:
            parent, name = os.path.split(relative_dir)
            found = self._old_directory(parent)
            if found is not None:
                found = os.path.join(found, name)
                try:
                    mode = os.lstat(found).st_mode
                except (FileNotFoundError, NotADirectoryError):
                    mode = 0
                if stat.S_ISLNK(mode):
                    found = os.path.realpath(found)
                    if not (_inside(found, self._current) or _inside(found, self._shared_real)):
                        raise OutputError('refusing to read %s: the existing output directory %s has a symlink that '
                                          'leads outside it' % (relative_dir, self.dest))
                    mode = stat.S_IFDIR if os.path.isdir(found) else 0
                if not stat.S_ISDIR(mode):
                    found = None  # nothing there, or a file where a directory belongs: replaced by the new files
        self._old_dirs[relative_dir] = found
        return found

    def _old_content(self, relative, mode):
        """The content of `relative` in the current output (None: there is none), as _ModeChanged when its file mode
        is not `mode`: it is written again with the right one, and a private file's older copy loses its group and
        other bits at once."""
        if self._current is None:
            return None
        directory, _unused, name = relative.rpartition('/')
        directory = self._old_directory(directory)
        if directory is None:
            return None
        path = os.path.join(directory, name)
        try:
            handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EISDIR):
                return None  # a symlink or directory where a file should be: replaced by the file
            raise
        with os.fdopen(handle, 'rb') as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode):
                return None
            content = stream.read()
            if stat.S_IMODE(info.st_mode) == mode:
                return content
            if mode == PRIVATE_FILE_MODE and not self.check_mode:
                os.fchmod(stream.fileno(), stat.S_IMODE(info.st_mode) & PRIVATE_FILE_MODE)
            return _ModeChanged(content)

    def put(self, relative, text, private=False):
        """Stage one file. Returns 'written' when its content (or its mode) is new or changed, 'unchanged' otherwise.
        private=True: the file carries a secret (a password hash) and is readable by its owner only."""
        check_relative(relative)
        if relative == MANIFEST:
            raise OutputError('refusing to write %s: the name is reserved for the manifest' % MANIFEST)
        data = text.encode('utf-8') if isinstance(text, str) else bytes(text)
        mode = PRIVATE_FILE_MODE if private else FILE_MODE
        self.files[relative] = hashlib.sha256(data).hexdigest()
        try:
            old = self._old_content(relative, mode)
        except OSError as exc:
            raise _failed(exc, os.path.join(self.dest, relative)) from None
        if old == data and not isinstance(old, _ModeChanged):
            self.unchanged += 1
            if relative in self.written:  # put twice, back to the old content: drop the staged copy
                del self.written[relative]
                if relative in self._staged:
                    os.unlink(os.path.join(self._group if _unit_of(relative) else self._staging, relative))
                    self._staged.discard(relative)
            return 'unchanged'
        self.written[relative] = True
        if self.on_change is not None and old != data:
            self.on_change(relative, None if old is None else bytes(old), data)
        if not self.check_mode:
            try:
                self._write(relative, data, mode)
            except OSError as exc:
                raise _failed(exc, os.path.join(self._staging or self.generations, relative)) from None
        return 'written'

    def carry_over(self, relatives) -> bool:
        """Carry every one of `relatives` over from the current output as it is, without reading or making it (the
        caller knows each would come out the same, e.g. from the manifest's meta): True when the current output's
        manifest lists each as the render's own and each is a regular file there; False, keeping none, otherwise
        (then put() them)."""
        relatives = list(relatives)
        for relative in relatives:
            if relative not in self._rendered or relative in self.files:
                return False
            directory, _unused, name = relative.rpartition('/')
            directory = self._old_directory(directory)
            try:
                if directory is None or not stat.S_ISREG(os.lstat(os.path.join(directory, name)).st_mode):
                    return False
            except OSError:
                return False
        for relative in relatives:
            self.files[relative] = self._rendered[relative]
        self.unchanged += len(relatives)
        return True

    def _write(self, relative, data, mode=FILE_MODE):
        staging = self._staging_directory()
        unit = _unit_of(relative)
        if unit:
            self._unit_directory(unit)
            self._ensure_directory(self._group, self._group, relative.rpartition('/')[0])
            path = self._group + '/' + relative
        else:
            self._ensure_directory(staging, self._staging_real, relative.rpartition('/')[0])
            path = staging + '/' + relative
        if relative in self._staged:
            os.unlink(path)
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
        try:
            if self._umask & mode:
                os.fchmod(handle, mode)  # the mode whatever the umask
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(handle, view):]
                except OSError as exc:
                    exc.filename = path  # os.write names no file
                    raise
        finally:
            os.close(handle)
        self._staged.add(relative)

    # ------------------------------------------------------------------ worker processes
    # Forked workers put() their devices' files themselves (rendered text never crosses a process boundary); each
    # hands what it staged to the parent, whose adopt() merges it in the order of the devices.
    def prepare_workers(self):
        """In the parent, before forking: the staging directory every worker writes into."""
        if not self.check_mode:
            try:
                self._staging_directory()
                os.makedirs(self._group, exist_ok=True)
            except OSError as exc:
                raise _failed(exc, self.generations) from None

    def start_worker(self):
        """In a forked worker: start from empty records; changed files go to the parent's on_change via adopt()."""
        self.take_changes()
        if self.on_change is not None:
            self.on_change = self._record_change

    def _record_change(self, relative, old, new):
        self._changes.append((relative, old, new))

    def take_changes(self) -> dict:
        """In a worker: what its put() calls recorded since the last call (and forget it)."""
        changes = {'files': self.files, 'written': list(self.written), 'unchanged': self.unchanged,
                   'on_change': self._changes, 'units': sorted(self._units)}
        self.files, self.written, self.unchanged, self._staged, self._changes = {}, {}, 0, set(), []
        self._units = set()
        return changes

    def adopt(self, changes):
        """In the parent: make a worker's put() calls its own, as if it had made them itself."""
        self.files.update(changes['files'])
        for relative in changes['written']:
            self.written[relative] = True
            if not self.check_mode:
                self._staged.add(relative)
        self.unchanged += changes['unchanged']
        self._units.update(changes.get('units', ()))
        for relative, old, new in changes['on_change']:
            self.on_change(relative, old, new)

    # ------------------------------------------------------------------ finish / abort
    def _existing_files(self, touched):
        """(files, shared) of the current output: relative path -> absolute path of every regular file (no symlinks
        followed), except in the shared directories (configs/<device>) a generation links to and this render does not
        touch: those are `shared`, unit -> its link, carried over as they are without being read."""
        found, shared = {}, {}
        if self._current is None:
            return found, shared
        pending = ['']
        while pending:
            relative_dir = pending.pop()
            with os.scandir(os.path.join(self._current, relative_dir)) as entries:
                for entry in entries:
                    relative = relative_dir + entry.name
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(relative + '/')
                    elif (entry.is_symlink() and relative_dir[:-1] in SHARED_ROOTS
                          and self._is_shared_link(relative, link := os.readlink(entry.path))):
                        self._current_links.add(link)
                        if relative in touched:
                            pending.append(relative + '/')  # its files one by one, into this render's own copy
                        else:
                            shared[relative] = link
                    elif entry.is_symlink() and entry.is_dir():
                        raise OutputError('the output directory %s contains a symlink (%s); remove it: rendered output '
                                          'never contains links but the device directories the render links' %
                                          (self.dest, relative))
                    elif entry.is_file(follow_symlinks=False):
                        found[relative] = entry.path
                    else:
                        raise OutputError('the output directory %s contains %s, which is not a regular file; remove it'
                                          % (self.dest, relative))
        return found, shared

    def _is_shared_link(self, unit, link):
        """Whether `link`, <current>/`unit`, is a link a render made to a plain directory of the shared store (checked
        without resolving the whole path: the link's exact form, the directories of its group once, the directory)."""
        match = SHARED_LINK.match(link)
        if not match or '%s/%s' % match.group(2, 3) != unit:
            return False
        group, root = match.group(1, 2)
        checked = self._real_dirs.get(('group', group, root))
        if checked is None:
            checked = all(_plain_directory(path) for path in (
                os.path.join(self.shared, group), os.path.join(self.shared, group, root)))
            self._real_dirs[('group', group, root)] = checked
        return checked and _plain_directory(os.path.join(self.shared, group, unit))

    def _removed(self, prune):
        """The files the current output's manifest lists as the render's own, under `prune`, still there and not put()
        by this render: those a whole render removes. Files the user keeps there are never removed."""
        removed = []
        for relative in self._rendered:
            if relative not in self.files and relative.split('/', 1)[0] in prune:
                directory, _unused, name = relative.rpartition('/')
                directory = self._old_directory(directory)
                try:
                    if directory is not None and stat.S_ISREG(os.lstat(os.path.join(directory, name)).st_mode):
                        removed.append(relative)
                except (FileNotFoundError, NotADirectoryError):
                    pass
        return sorted(removed)

    def finish(self, roots=(), prune=(), meta=None) -> dict:
        """Complete the render: files under `prune` roots that were not put() are removed; every other existing file
        is kept. Unless nothing changed (or in check mode), the new generation replaces dest atomically.

        roots: top-level directories whose files the manifest lists (the render's own output).
        Returns {changed, written, unchanged, removed, files, generation, manifest}.
        """
        try:
            prune = tuple(prune)
            # A render whose files are all unchanged still records what it says of them (meta: the intent they come
            # from) in a new generation, without counting as a change.
            recorded = not self.check_mode and meta is not None and meta != self.previous_meta
            self.removed = self._removed(prune) if prune and self._current is not None else []
            changed = bool(self.written or self.removed)
            manifest_path = None
            if (changed or recorded) and not self.check_mode:
                manifest_path = self._switch(roots, meta)
            else:
                self._discard_staging()
            self._done = True
            return {'changed': changed, 'written': len(self.written), 'unchanged': self.unchanged,
                    'removed': list(self.removed), 'files': len(self.files), 'generation': self.generation
                    if manifest_path else None, 'manifest': manifest_path}
        except OSError as exc:
            self.abort()
            raise _failed(exc, self.dest) from None
        except BaseException:
            self.abort()
            raise
        finally:
            self._release_lock()

    def _switch(self, roots, meta):
        staging = self._staging_directory()
        removed = set(self.removed)
        # The shared directories this render changes (a file written or removed): made again for this generation.
        touched = set(self._units)
        touched.update(unit for unit in map(_unit_of, itertools.chain(self._staged, removed)) if unit)
        existing, shared = self._existing_files(touched)
        digests = dict(self.files)
        for relative, source in existing.items():
            if relative == MANIFEST or relative in self._staged or relative in removed:
                continue
            unit = _unit_of(relative)
            if unit:  # a device directory that changes, or one of an older layout (a plain directory): copied once
                self._unit_directory(unit)
                base = self._group
                self._ensure_directory(base, base, os.path.dirname(relative))
            else:
                base = staging
                self._ensure_directory(base, self._staging_real, os.path.dirname(relative))
            target = os.path.join(base, relative)
            try:
                os.link(source, target, follow_symlinks=False)
            except OSError:
                shutil.copy2(source, target, follow_symlinks=False)  # another file system, or no hard links
        links = dict(shared)
        links.update((unit, _shared_link(self.generation, unit)) for unit in self._units)
        trash, unused = self._link_shared(links)
        for relative, digest in self._rendered.items():  # the render's own files, carried over
            if relative not in digests and relative not in removed and (
                    relative in existing or _unit_of(relative) in shared):
                digests[relative] = digest
        listed = {relative: digest for relative, digest in sorted(digests.items()) if relative.split('/', 1)[0] in roots}
        manifest = {'format': MANIFEST_FORMAT, 'complete': True, 'generation': self.generation, 'created': _now(),
                    'meta': meta or {}, 'files': listed}
        with open(os.path.join(staging, MANIFEST), 'w', encoding='utf-8') as stream:
            stream.write(jsontext.dumps(manifest, indent=1, sort_keys=True) + '\n')
        final = os.path.join(self.generations, self.generation)
        os.rename(staging, final)
        self._staging = None
        self._point_dest_at(final)
        self._trim_generations(trash, unused)
        return os.path.join(self.dest, MANIFEST)

    def _link_shared(self, links):
        """Give the staging generation its links to the shared directories, `links` (unit -> link). Creating a link
        costs an inode, and on ext4 without a journal every inode allocated skips each inode freed in the last minutes
        (docs/design.md): so the links directory of the generation that this render makes the oldest past `keep` is
        taken over (renamed) and only its links that differ are replaced. Returns (the generations renamed away, the
        shared directories that no kept generation links to any more), to delete in the background. (A render that
        fails after this has retired that generation already: the current one stays, whole.)"""
        staging = self._staging_directory()
        complete = sorted(name for name in os.listdir(self.generations) if GENERATION.match(name))
        current = os.path.basename(self._current) if self._current and os.path.islink(self.dest) else None
        past_keep = complete[:max(0, len(complete) - self.keep + 1)]  # once this render's generation is made
        trash = [path for path in map(self._to_trash, (name for name in past_keep if name != current)) if path]
        old_links = set()
        wanted = {}
        for unit, link in links.items():
            root, _unused, name = unit.partition('/')
            wanted.setdefault(root, {})[name] = link
        for root in SHARED_ROOTS:
            wanted_here = wanted.get(root, {})
            staged = os.path.join(staging, root)
            base = os.path.join(trash[-1], root) if trash else None
            made = set(os.listdir(staged)) if os.path.isdir(staged) else set()
            if base and _plain_directory(base) and all(
                    wanted_here.get(name) == _shared_link(self.generation, '%s/%s' % (root, name)) for name in made):
                for name, link in self._replace_links(base, wanted_here, made, old_links, trash).items():
                    self._make_link('%s/%s' % (root, name), link, os.path.join(base, name))
                for name in made:  # this render's own, made while it wrote them
                    os.rename(os.path.join(staged, name), os.path.join(base, name))
                if made:
                    os.rmdir(staged)
                os.rename(base, staged)
            else:
                directory = self._ensure_directory(staging, self._staging_real, root) if wanted_here else None
                for name, link in wanted_here.items():
                    if name not in made:
                        self._make_link('%s/%s' % (root, name), link, os.path.join(directory, name))
        for path in trash:
            old_links.update(_links_of(path))
        in_use = set(links.values())
        if current in past_keep:  # keep=1: the current generation goes too, after the switch
            old_links.update(self._current_links)
        else:
            in_use.update(self._current_links)
        for name in complete:
            if name not in past_keep and name != current:
                in_use.update(_links_of(os.path.join(self.generations, name)))
        return trash, [os.path.join(self.generations, link[len('../../'):]) for link in sorted(old_links - in_use)]

    def _make_link(self, unit, link, path):
        """The link `link` at `path`: a hard link to the current generation's own link when it is the same (a new
        directory entry, no inode), else a new symlink."""
        if self._current is not None and link in self._current_links:
            try:
                os.link(os.path.join(self._current, unit), path, follow_symlinks=False)
                return
            except OSError:
                pass  # not the same link there, or a file system without hard links
            if os.path.lexists(path):
                os.unlink(path)
        os.symlink(link, path)

    def _replace_links(self, base, wanted, made, old_links, trash):
        """Make the links directory `base` hold `wanted` (name -> link), but for the `made` names (moved in after):
        the links already right stay, the others go (their links added to `old_links`; an older layout's device
        directories are moved to a directory of `trash`). Returns the links still to make."""
        missing = dict(wanted)
        directories = []
        with os.scandir(base) as entries:
            for entry in entries:
                link = os.readlink(entry.path) if entry.is_symlink() else None
                if link is not None:
                    old_links.add(link)
                    if missing.get(entry.name) == link and entry.name not in made:
                        del missing[entry.name]
                        continue
                if entry.is_dir(follow_symlinks=False):
                    directories.append(entry.name)
                else:
                    os.unlink(entry.path)
        if directories:
            trash.append(os.path.join(self.generations, '%s-%s%s-%d-%d' % (
                self.generation, os.path.basename(base), TRASH_SUFFIX, os.getpid(), next(_TRASH_NUMBERS))))
            os.mkdir(trash[-1])
            for name in directories:
                os.rename(os.path.join(base, name), os.path.join(trash[-1], name))
        for name in made:
            missing.pop(name, None)
        return missing

    def _point_dest_at(self, final):
        link = os.path.join(self.parent, '.%s.link-%d' % (self.name, os.getpid()))
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.path.relpath(final, self.parent), link)
        if os.path.isdir(self.dest) and not os.path.islink(self.dest):
            # Output of an older version (a plain directory): moved aside once, then replaced by the symlink.
            os.rename(self.dest, os.path.join(self.generations, 'previous-plain-%d%s' % (os.getpid(), PARTIAL_SUFFIX)))
        os.replace(link, self.dest)

    def _trim_generations(self, trash, unused):
        """The generations past `keep` (`trash`, renamed away already) and the shared directories no kept generation
        links to (`unused`) are deleted by a detached process, so that a render does not wait for their unlinks; what
        it leaves, the next render removes."""
        # An older version's plain output directory, moved here by _point_dest_at.
        names = os.listdir(self.generations)
        past_keep = sorted(name for name in names if GENERATION.match(name))[:-self.keep]  # keep=1: the previous one
        trash = list(trash) + [path for path in map(self._to_trash, past_keep + [
            name for name in names if name.endswith(PARTIAL_SUFFIX)]) if path]
        if trash or unused:
            _remove_in_background(trash + unused, self.shared)

    def _discard_staging(self):
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None
        if self._group is not None and self.generation and not os.path.exists(
                os.path.join(self.generations, self.generation)):
            shutil.rmtree(self._group, ignore_errors=True)  # the device directories this render wrote

    def abort(self):
        """Forget this render: remove the staging directory; dest stays exactly as it was."""
        try:
            self._discard_staging()
        finally:
            self._done = True
            self._release_lock()


class _ModeChanged(bytes):
    """The old content of a file whose mode is not the one wanted: equal bytes, still to be written again."""


def _some_files(directory, count=3):
    """Up to `count` relative paths of files under `directory` (sorted walk), for a message; [] when it has none."""
    found = []
    for top, dirs, files in os.walk(directory):
        dirs.sort()
        found.extend(os.path.relpath(os.path.join(top, name), directory) for name in sorted(files))
        if len(found) > count:
            return found[:count] + ['...']
    return found


def _unit_of(relative):
    """The shared directory (configs/<device>) that holds `relative`, or '' when it is in none."""
    root, _unused, rest = relative.partition('/')
    if root not in SHARED_ROOTS:
        return ''
    name, slash, _unused = rest.partition('/')
    return '%s/%s' % (root, name) if slash else ''


def _shared_link(generation, unit):
    """The link, from a generation's <root>/, to the shared directory `unit` that `generation` wrote."""
    return '../../%s/%s/%s' % (SHARED, generation, unit)


def _plain_directory(path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _links_of(generation) -> set:
    """The links to shared directories that `generation` (a directory) has, as written."""
    found = set()
    for root in SHARED_ROOTS:
        try:
            entries = os.scandir(os.path.join(generation, root))
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.is_symlink():
                    link = os.readlink(entry.path)
                    if SHARED_LINK.match(link):
                        found.add(link)
    return found


# The detached deleter: each tree given, then the directories that held those of them in the shared store (a
# generation's group, and its <root>), when they are left empty.
_DELETER = r"""
import os, shutil, sys
try:
    os.nice(10)
except OSError:
    pass
for path in sys.argv[2:]:
    shutil.rmtree(path, ignore_errors=True)
for path in sorted({os.path.dirname(path) for path in sys.argv[2:] if os.path.dirname(os.path.dirname(
        os.path.dirname(path))) == sys.argv[1]}):
    for empty in (path, os.path.dirname(path)):
        try:
            os.rmdir(empty)
        except OSError:
            break
"""


def _remove_in_background(paths, shared):
    """Delete directory trees (renamed out of the way, or no longer linked to) in a process of their own that outlives
    this one (stdlib only); then the directories of `store` that held them, when left empty."""
    try:
        subprocess.Popen(  # pylint: disable=consider-using-with
            [sys.executable or 'python3', '-c', _DELETER, shared] + list(paths),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        for path in paths:
            shutil.rmtree(path, ignore_errors=True)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


__all__ = ['StagedOutput', 'OutputError', 'OutputBusy', 'check_relative', 'inventory_conflict', 'system_directory',
           'installed_collection', 'installed_collection_conflict', 'verify', 'read_manifest', 'MANIFEST', 'CONFIGS',
           'DOCS']
