# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load a fabric intent: apply schema defaults, validate types and ranges, then cross-field rules.

Checks that need the generated topology (pool sizes, oversubscription, buffer budget) run in the design (design/).
"""

from __future__ import annotations

import copy
import difflib
import functools
import ipaddress
import itertools
import math
import os
import re
import string

from . import compile_cache
from .asic import asic_names
from .errors import NO_VALUE, IssueCollector, format_path
from .intent_yaml import MAX_DEPTH, MAX_NODES, IntentYAMLError, load_package_yaml, load_yaml_file_located, load_yaml_text
from .platforms import PLATFORMS, registered
from .switch_models import model_names
from .terms import SWITCH_ROLES, VXLAN_OVERHEAD

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), 'schema', 'intent.schema.yml')
TOP_QUEUE = 7  # the highest of the eight egress queues (traffic classes 0-7)
NAMING_FIELDS = {'n', 'pod', 'rail', 'group', 'plane'}
NCCL_MANAGED_KEYS = {'NCCL_IB_HCA', 'NCCL_IB_TC', 'NCCL_SOCKET_IFNAME', 'NCCL_IB_GID_INDEX',
                     'NCCL_IB_QPS_PER_CONNECTION', 'NCCL_IB_SPLIT_DATA_ON_QPS'}
# A naming field's format: {n}, {n:3}, {n:03d} (zero padding and a width below 100, decimal only).
NAMING_SPEC = re.compile(r'0?[0-9]{0,2}d?')
# VRF names no fabric VRF may take on any NOS: the global table every NOS has, and the generic name of a management
# VRF; each platform adds its own management VRF and the names it reserves (reserved_vrf_names()).
GENERIC_VRF_NAMES = ('default', 'management')
PLAIN_TYPES = (str, int, float, bool, type(None))


def load_schema() -> dict:
    """The intent schema with the platforms of the registry, the shipped switch models and the ASIC families in it
    (built again only when the registry changed)."""
    platforms = registered()
    if _SCHEMA.get('platforms') is not platforms:
        _SCHEMA.update(platforms=platforms, schema=with_registries(load_package_yaml(SCHEMA_PATH), platforms))
        _validator.cache_clear()
        _fast_validator.cache_clear()
    return _SCHEMA['schema']


_SCHEMA = {}


def schema_default(*path):
    """The default the intent schema gives the property at `path` (('management', 'offset')), read from the schema
    file alone: it asks nothing of the platform registry (what load_schema() fills in is never a default)."""
    node = _plain_schema()
    for name in path:
        node = node['properties'][name]
    return node['default']


@functools.lru_cache(maxsize=1)
def _plain_schema() -> dict:
    return load_package_yaml(SCHEMA_PATH)


def reserved_vrf_names(platforms=None) -> set:
    """The VRF names (lower case) some platform keeps for itself: GENERIC_VRF_NAMES, each platform's management VRF
    and the names it reserves (Platform.reserved_vrf_names)."""
    names = set(GENERIC_VRF_NAMES)
    for platform in (registered() if platforms is None else platforms).values():
        names.add(platform.management_vrf.lower())
        names.update(name.lower() for name in platform.reserved_vrf_names)
    return names


def with_registries(schema, platforms) -> dict:
    """`schema` with what the registries hold: the platforms' names as the platform enum ($defs/platform), the first
    one listed as each switch role's default, one topology.nos_release property per platform with its default
    release described, the VRF name rule every platform takes ($defs/vrf_name), and the shipped switch models and
    ASIC families as the model and asic enums."""
    names = list(platforms)
    schema['$defs']['platform']['enum'] = names
    topology = schema['properties']['topology']['properties']
    for role in topology['platform']['properties'].values():
        role['default'] = names[0]
    releases = topology['nos_release']
    releases['properties'] = {name: dict(schema['$defs']['nos_release']) for name in names}
    releases['description'] = '%s Defaults: %s.' % (releases['description'], ', '.join(
        '%s %s' % (name, platform.default_release) for name, platform in platforms.items()))
    models, asics = model_names(), asic_names()
    for role in topology['model']['properties'].values():
        role['enum'] = models + [None]
    for role in topology['asic']['properties'].values():
        role['enum'] = asics + [None]
    device = topology['devices']['additionalProperties']['properties']
    device['model']['enum'], device['asic']['enum'] = models, asics
    longest = min(platform.vrf_name_max for platform in platforms.values())
    strictest = [platform.label for platform in platforms.values() if platform.vrf_name_max == longest]
    schema['$defs']['vrf_name'].update(
        pattern='^[A-Za-z][A-Za-z0-9_-]{0,%d}$' % (longest - 1),
        **{'x-allowed': '1-%d letters, digits, _ or -, starting with a letter (the longest VRF name %s takes); not %s'
                        % (longest, ' and '.join(strictest), ', '.join(sorted(reserved_vrf_names(platforms))))})
    return schema


@functools.lru_cache(maxsize=None)
def _compiled(pattern):
    return re.compile(pattern)


def _strict_pattern(validator, pattern, instance, schema):
    """JSON Schema `pattern` with ECMA-262 semantics for `$`: the end of the text, not "before a final newline".

    Python's re lets ^[a-z]+$ match "leaf1\\n"; a name with a newline is exactly what must never reach a file.
    """
    if not validator.is_type(instance, 'string'):
        return
    match = _compiled(pattern).search(instance)
    if match is None or (pattern.endswith('$') and match.end() != len(instance)):
        from jsonschema.exceptions import ValidationError
        yield ValidationError('%r does not match %r' % (instance, pattern))


def _is_integer(checker, instance):
    """Integers only: not 4.0 (JSON Schema's default accepts it), not true/false."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(checker, instance):
    return isinstance(instance, (int, float)) and not isinstance(instance, bool)


def schema_validator_class():
    """The jsonschema validator class of the intent: strict integers and ECMA `$` in patterns. Reuse it for new
    schema fragments so that every field follows the same rules."""
    import jsonschema
    base = jsonschema.validators.validator_for(load_schema())
    checker = base.TYPE_CHECKER.redefine_many({'integer': _is_integer, 'number': _is_number})
    return jsonschema.validators.extend(base, validators={'pattern': _strict_pattern}, type_checker=checker)


def _parses(parse):
    def valid(text):
        try:
            parse(text)
        except ValueError:
            return False
        return True
    return valid


# The schema's `format` values: text -> valid?, for both validators (jsonschema and fastjsonschema).
FORMATS = {'ipv4': _parses(ipaddress.IPv4Address),
           'ipv4_network': _parses(functools.partial(ipaddress.IPv4Network, strict=True))}


@functools.lru_cache(maxsize=1)
def _validator():
    try:
        import jsonschema
    except ImportError as exc:  # pragma: no cover - exercised only without the dependency
        raise RuntimeError('The Python package "jsonschema" is required on the controller: '
                           'pip install -r requirements.txt') from exc
    checker = jsonschema.FormatChecker(formats=())
    for name, valid in FORMATS.items():
        checker.checks(name)(lambda value, valid=valid: not isinstance(value, str) or valid(value))
    return schema_validator_class()(inline_local_refs(load_schema()), format_checker=checker)


FAST_VALIDATION_VALUES = 2000
# JSON types of enum values, for the fast validator's copy of the schema.
_JSON_TYPES = ((bool, 'boolean'), (int, 'integer'), (float, 'number'), (str, 'string'), (type(None), 'null'),
               (list, 'array'), (dict, 'object'))


def _fast_schema(schema):
    """The schema as fastjsonschema must read it to accept no more than jsonschema with our checks: draft-07
    (the keywords the intent schema uses are draft-07's; fastjsonschema reads `$` as the end of the text, like
    ECMA), and an enum without a type allows only its values' types (Python's `in` takes True for 1)."""
    if isinstance(schema, list):
        return [_fast_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    fast = {key: _fast_schema(value) for key, value in schema.items() if key not in ('$schema', '$defs', 'default')}
    if isinstance(schema.get('enum'), list) and 'type' not in schema:
        fast['type'] = sorted({next(name for kind, name in _JSON_TYPES if isinstance(value, kind))
                               for value in schema['enum']})
    return fast


@functools.lru_cache(maxsize=1)
def _fast_validator():
    """A compiled validator (fastjsonschema) that says only "valid" or "not valid", 20x faster than jsonschema on
    a large explicit topology; jsonschema stays the judge of anything it refuses and words every problem. None
    without the package."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    schema = dict(_fast_schema(inline_local_refs(load_schema())), **{'$schema': 'http://json-schema.org/draft-07/schema#'})
    validate = compile_cache.schema_validator(schema, FORMATS, use_default=False)

    def accepts(instance):
        try:
            validate(instance)
        except fastjsonschema.JsonSchemaException:
            return False
        return True
    return accepts


class _NoInteger(float):
    """An integral float (4.0) as the fast validator must see it: a number, never an integer, as the intent takes it.
    fastjsonschema's draft-07 type check asks the float's is_integer(); its bounds, enum, const and multipleOf read the
    same value as before."""

    __slots__ = ()

    def is_integer(self):
        return False


def _integral_floats_marked(node):
    """A copy of plain data (no cycles, bounded depth: _check_plain_data) with every integral float a _NoInteger."""
    if isinstance(node, float):
        return _NoInteger(node) if node.is_integer() else node
    if isinstance(node, dict):
        return {key: _integral_floats_marked(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_integral_floats_marked(value) for value in node]
    return node


ANNOTATIONS = frozenset(('description', 'title', 'default', 'examples', 'deprecated'))


def inline_local_refs(schema, root=None, _seen=()):
    """`schema` with every local `$ref` ('#/$defs/name') replaced by what it points at: the same validation without
    a reference lookup per instance (jsonschema resolves each `$ref` anew, the larger part of validating an explicit
    topology). Sibling keywords stay, beside the target's or, where both have one, through allOf."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [inline_local_refs(item, root, _seen) for item in schema]
    if not isinstance(schema, dict):
        return schema
    inlined = {key: inline_local_refs(value, root, _seen) for key, value in schema.items() if key != '$ref'}
    ref = schema.get('$ref')
    if not isinstance(ref, str) or not ref.startswith('#/') or ref in _seen:
        if ref is not None:
            inlined['$ref'] = ref
        return inlined
    target = root
    for part in ref[2:].split('/'):
        target = target[part]
    target = inline_local_refs(target, root, _seen + (ref,))
    if isinstance(target, dict) and not (set(target) & set(inlined)) - ANNOTATIONS:
        return dict(target, **inlined)
    inlined['allOf'] = list(inlined.get('allOf', [])) + [target]
    return inlined


def resolve(schema, root=None):
    """`schema` with a local $ref ('#/$defs/name') merged in (the referencing node's own keys win)."""
    ref = schema.get('$ref') if isinstance(schema, dict) else None
    if not ref:
        return schema
    root = load_schema() if root is None else root
    target = root
    for part in ref.lstrip('#/').split('/'):
        target = target[part]
    merged = dict(resolve(target, root))
    merged.update((key, value) for key, value in schema.items() if key != '$ref')
    return merged


def apply_defaults(instance, schema):
    """Fill `default` values from the schema into a copy-on-write instance, recursively."""
    schema = resolve(schema)
    if isinstance(instance, dict) and schema.get('type') == 'object':
        for key, sub in schema.get('properties', {}).items():
            if key not in instance and 'default' in sub:
                instance[key] = copy.deepcopy(sub['default'])
            if key in instance:
                apply_defaults(instance[key], sub)
        extra = schema.get('additionalProperties')
        if isinstance(extra, dict):
            for key, value in instance.items():
                if key not in schema.get('properties', {}):
                    apply_defaults(value, extra)
    elif isinstance(instance, list) and isinstance(schema.get('items'), dict):
        for item in instance:
            apply_defaults(item, schema['items'])
    return instance


def _describe_type(types) -> str:
    names = {'integer': 'an integer', 'number': 'a number', 'string': 'a string', 'boolean': 'true or false',
             'object': 'a mapping', 'array': 'a list', 'null': 'null'}
    if isinstance(types, str):
        types = [types]
    return ' or '.join(names.get(name, name) for name in types)


def _did_you_mean(given, choices) -> str:
    """'; did you mean X?' for a misspelt key or value close to one of `choices` (difflib's ratio >= 0.6, the closest),
    else ''. Compared without case: `SONiC` is `sonic`."""
    if not isinstance(given, str) or not given or len(given) > 64:
        return ''
    lowered = {choice.lower(): choice for choice in choices}
    close = difflib.get_close_matches(given.lower(), list(lowered), n=1, cutoff=0.6)
    return '; did you mean %s?' % lowered[close[0]] if close and lowered[close[0]] != given else ''


def _schema_issues(error, issues):
    """Translate one jsonschema error into Issues that say what is allowed."""
    path = list(error.absolute_path)
    schema = error.schema
    kind = error.validator
    value = error.instance
    if 'propertyNames' in error.absolute_schema_path:
        # The error is about a key: name the key (the instance), not the mapping that holds it.
        path = path + [value]
    if kind == 'required':
        missing = [key for key in error.validator_value if key not in (value or {})]
        for key in missing:
            issues.add(path + [key], NO_VALUE, 'is required')
        return
    if kind == 'additionalProperties':
        # The key is named (a typo is the usual cause); its value is not shown: it may be anything, a secret included.
        allowed = sorted(schema.get('properties', {}))
        for key in sorted(set(value) - set(allowed)):
            issues.add(path + [key], NO_VALUE, 'unknown key%s (allowed: %s)' % (_did_you_mean(key, allowed), ', '.join(allowed))
                       if allowed else 'unknown key')
        return
    if kind == 'enum':
        choices = ['null' if item is None else str(item) for item in error.validator_value]
        message = 'must be one of: %s%s' % (', '.join(choices), _did_you_mean(value, choices))
    elif kind == 'type':
        message = 'must be %s' % _describe_type(error.validator_value)
    elif kind in ('minimum', 'maximum'):
        low, high = schema.get('minimum'), schema.get('maximum')
        if low is not None and high is not None:
            message = 'must be between %s and %s' % (low, high)
        elif low is not None:
            message = 'must be at least %s' % low
        else:
            message = 'must be at most %s' % high
    elif kind == 'pattern':
        message = 'must be %s' % schema.get('x-allowed', 'text matching %s' % error.validator_value)
    elif kind == 'format':
        message = {'ipv4': 'must be an IPv4 address such as 10.0.0.1',
                   'ipv4_network': 'must be an IPv4 network such as 10.0.0.0/16 (no host bits set)'}.get(
            error.validator_value, 'must be a valid %s' % error.validator_value)
    elif kind == 'maxLength':
        message = 'must be at most %d characters' % error.validator_value
    elif kind == 'maxProperties':
        message = 'must have at most %d entries' % error.validator_value
        value = '%d entries' % len(value)
    elif kind == 'minItems':
        message = 'must list at least %d item%s' % (error.validator_value, '' if error.validator_value == 1 else 's')
    elif kind == 'maxItems':
        message = 'must list at most %d items' % error.validator_value
        value = '%d items' % len(value)
    elif kind == 'uniqueItems':
        message = 'must not repeat items'
    else:
        message = error.message
    issues.add(path, value, message)


def read_intent_file(path: str):
    """The data of an intent file, read with the bounded YAML loader; IntentError with file and line otherwise."""
    return read_intent_file_located(path)[0]


def read_intent_file_located(path: str):
    """(data, {path: line}) of an intent file (intent_yaml.node_lines): the lines locate later problems."""
    try:
        return load_yaml_file_located(path)
    except IntentYAMLError as exc:
        _raise_yaml_problems(exc)


def read_intent_text(text: str, name: str = '<intent>'):
    """Like read_intent_file for YAML text in memory; `name` stands for the file in messages."""
    try:
        return load_yaml_text(text, name)
    except IntentYAMLError as exc:
        _raise_yaml_problems(exc)


def _raise_yaml_problems(exc):
    issues = IssueCollector()
    if exc.data is not None:  # the document was read (its only problems are duplicate keys): is it an intent at all?
        _check_foreign(exc.data, issues)
        issues.raise_if_any()
    for line, message in exc.problems:
        issues.add('%s:%d' % (exc.path, line) if line else exc.path, NO_VALUE, message)
    issues.raise_if_any()


def load_intent_file(path: str) -> dict:
    """Read an intent YAML file and return the validated intent with defaults applied."""
    return load_intent(read_intent_file(path))


def load_intent(data) -> dict:
    """Validate an intent mapping; return a new mapping with every default filled in."""
    intent, issues = validate_intent(data)
    issues.raise_if_any()
    return intent


def validate_intent(data):
    """(intent with defaults, IssueCollector of cross-field problems).

    Problems that make the data unsafe to look at further (not plain data, wrong types, out of range) raise
    IntentError at once, every one of them. Cross-field problems are returned instead, so that the design can add
    its own (topology, pools) and the user sees every problem in one run.
    """
    issues = IssueCollector()
    _check_foreign(data, issues)
    issues.raise_if_any()
    values, integral_floats, unreadable = _check_plain_data(data, issues)
    if unreadable is None:  # a structure that cannot be walked safely (recursive, too deep, too large)
        issues.raise_if_any()
    # What was reported above is left out, so that the schema reports every other problem in the same run.
    intent = apply_defaults(_plain_copy(data, unreadable) if unreadable else copy.deepcopy(data), load_schema())
    # Compiling the fast validator costs what jsonschema needs for FAST_VALIDATION_VALUES values: worth it for a
    # large (explicit) topology, or once it is compiled (in this process, or earlier for this user: compile_cache).
    # A float such as 4.0 is an integer to draft-07 (fastjsonschema), not to the intent: the fast validator sees it
    # marked as no integer (importing and running jsonschema for an `oversubscription: 1.0` costs 0.09 CPU-s).
    fast = (_fast_validator() if values >= FAST_VALIDATION_VALUES or _fast_validator.cache_info().currsize
            or compile_cache.cache_directory() else None)
    if unreadable or fast is None or not fast(_integral_floats_marked(intent) if integral_floats else intent):
        schema_issues = IssueCollector()
        for error in _validator().iter_errors(intent):
            _schema_issues(error, schema_issues)
        reported = [format_path(list(path)) for path in unreadable]
        issues.issues.extend(issue for issue in schema_issues.issues if not _under(issue.path, reported))
    issues.raise_if_any()
    _check_cross_fields(intent, issues)
    return intent, issues


def _check_foreign(data, issues):
    """A document that is not an intent at all (a key file, /etc/shadow, a vars file given by mistake) is refused in
    one sentence that shows nothing of it: it may be anyone's secrets."""
    if not isinstance(data, dict):
        issues.add('(root)', NO_VALUE, 'the intent must be a mapping with at least name and topology; the file holds %s '
                                       '(not shown)' % ('nothing' if data is None else _kind(data)))
    else:
        known = load_schema()['properties']
        if not any(key in known for key in data if isinstance(key, str)):
            issues.add('(root)', NO_VALUE, 'is not a fabric intent: none of its %d top-level keys is one of the '
                                           'intent\'s (%s); its content is not shown' % (len(data), ', '.join(sorted(known))))


def _under(path, prefixes) -> bool:
    return any(path == prefix or path.startswith((prefix + '.', prefix + '[')) for prefix in prefixes)


def _plain_copy(node, leave_out, path=()):
    """A copy of the data without the entries at the paths in `leave_out` (list items there become None)."""
    if isinstance(node, dict):
        return {key: _plain_copy(value, leave_out, path + (key,)) for key, value in node.items()
                if path + (key,) not in leave_out}
    if isinstance(node, list):
        return [None if path + (index,) in leave_out else _plain_copy(value, leave_out, path + (index,))
                for index, value in enumerate(node)]
    return node


def _kind(value) -> str:
    names = {bool: 'true/false', int: 'an integer', float: 'a number', str: 'text', type(None): 'null',
             list: 'a list', dict: 'a mapping'}
    return names.get(type(value), 'a Python %s' % type(value).__name__)


def _check_plain_data(data, issues):
    """Walk the data once, iteratively: text keys only, plain values only, finite numbers, bounded depth and size,
    no cycles. The YAML loader already enforces most of this for files; the Python API needs it too. Returns
    (number of values, whether one of them is a float with an integral value such as 4.0, the set of paths of the
    entries reported here (not plain data, not a finite number), or None when the walk had to stop: a cycle, too deep,
    too many values)."""
    integral_floats = False
    unreadable = set()
    expanded = {}  # id(container) -> expanded value count (shared sub-structures count once per use)
    stack = [(data, (), False)]
    open_ids = set()
    total = 0
    while stack:
        node, path, leaving = stack.pop()
        if leaving:
            open_ids.discard(id(node))
            children = node.values() if isinstance(node, dict) else node
            expanded[id(node)] = 1 + sum(expanded.get(id(child), 1) for child in children)
            continue
        if isinstance(node, (dict, list)):
            if id(node) in open_ids:
                issues.add(list(path), NO_VALUE, 'contains itself (a recursive structure)')
                return total, integral_floats, None
            if id(node) in expanded:
                total += expanded[id(node)]
                continue
            if len(path) > MAX_DEPTH:
                issues.add(list(path[:MAX_DEPTH]), NO_VALUE, 'nests deeper than %d levels' % MAX_DEPTH)
                return total, integral_floats, None
            open_ids.add(id(node))
            stack.append((node, path, True))
            if isinstance(node, dict):
                for key, value in node.items():
                    if not isinstance(key, str):
                        issues.add(list(path) + [key], value, 'mapping keys must be text, got %s key %r; quote it or '
                                                              'remove it' % (_kind(key), key))
                        unreadable.add(path + (key,))
                        continue
                    stack.append((value, path + (key,), False))
            else:
                stack.extend((value, path + (index,), False) for index, value in enumerate(node))
            total += 1
        elif not isinstance(node, PLAIN_TYPES):
            issues.add(list(path), node, 'must be plain data (text, number, true/false, null, list or mapping), got '
                                         '%s; quote it if it is meant as text' % _kind(node))
            unreadable.add(path)
            total += 1
        elif isinstance(node, float) and math.isnan(node):
            issues.add(list(path), node, 'must be a number (NaN is not allowed)')
            unreadable.add(path)
        elif isinstance(node, float) and math.isinf(node):
            issues.add(list(path), node, 'must be a finite number')
            unreadable.add(path)
        else:
            integral_floats = integral_floats or (isinstance(node, float) and node.is_integer())
            total += 1
        if total > MAX_NODES:
            issues.add('(root)', NO_VALUE, 'the intent has more than %d values' % MAX_NODES)
            return total, integral_floats, None
    return total, integral_floats, unreadable


def platforms_in_use(intent: dict) -> dict:
    """Map platform name -> the intent path that selects it."""
    used = {}
    for role in SWITCH_ROLES:
        used.setdefault(intent['topology']['platform'][role], 'topology.platform.%s' % role)
    for name, override in intent['topology']['devices'].items():
        if 'platform' in override:
            used.setdefault(override['platform'], 'topology.devices.%s.platform' % name)
    return used


def _check_cross_fields(intent, issues):
    topology = intent['topology']
    if ('rail_optimized' in topology) == ('explicit' in topology):
        issues.add('topology', sorted(key for key in ('rail_optimized', 'explicit') if key in topology),
                   'set exactly one of rail_optimized or explicit')
    _check_naming(topology['naming'], issues)
    _check_releases(intent, issues)
    _check_lossless(intent, issues)
    _check_pools(intent, issues)
    _check_overlay(intent, issues)
    _check_underlay(intent, issues)
    _check_hosts(intent, issues)
    _check_management(intent, issues)


def nos_release(intent, platform, device=None) -> str:
    """The NOS release a switch is rendered for: its override, its platform's intent value, or the default."""
    override = intent['topology']['devices'].get(device, {}).get('nos_release') if device else None
    return override or intent['topology']['nos_release'][platform] or PLATFORMS[platform].default_release


def _check_releases(intent, issues):
    for platform, release in intent['topology']['nos_release'].items():
        if release is not None and release not in PLATFORMS[platform].releases:
            issues.add(['topology', 'nos_release', platform], release, 'is not a supported %s release (supported: %s)'
                       % (PLATFORMS[platform].title, ', '.join(PLATFORMS[platform].releases)))


def _check_naming(naming, issues):
    """Templates are checked here by their parts; topology.py checks every name they produce."""
    for role, template in naming.items():
        path = ['topology', 'naming', role]
        try:
            parts = list(string.Formatter().parse(template))
        except ValueError as exc:
            issues.add(path, template, 'is not a valid name template: %s' % exc)
            continue
        fields = set()
        problem = None
        for _literal, field, spec, conversion in parts:
            if field is None:
                continue
            fields.add(field)
            if field not in NAMING_FIELDS:
                problem = 'uses unknown field {%s} (allowed: %s)' % (field, ', '.join(sorted(NAMING_FIELDS)))
            elif conversion or not NAMING_SPEC.fullmatch(spec or ''):
                problem = 'formats {%s} as %r; allowed: {%s} or a zero-padded width such as {%s:03d}' % (
                    field, '%s%s' % ('!' + conversion if conversion else '', ':' + spec if spec else ''), field, field)
            if problem:
                break
        if problem:
            issues.add(path, template, problem)
        elif 'n' not in fields:
            issues.add(path, template, 'must contain {n} so that names are unique')


def _check_lossless(intent, issues):
    lossless = intent['lossless']
    priorities = lossless['pfc']['priorities']
    if lossless['roce_dscp'] == lossless['cnp_dscp']:
        issues.add('lossless.cnp_dscp', lossless['cnp_dscp'], 'must differ from lossless.roce_dscp (CNPs need their own class)')
    if lossless['cnp_priority'] in priorities:
        issues.add('lossless.cnp_priority', lossless['cnp_priority'],
                   'must not be a lossless priority (lossless.pfc.priorities = %s): CNPs must not queue behind RoCE data' % priorities)
    if lossless['default_traffic_class'] in priorities or lossless['default_traffic_class'] == lossless['cnp_priority']:
        issues.add('lossless.default_traffic_class', lossless['default_traffic_class'],
                   'must differ from the lossless priorities %s and the CNP priority %d' % (priorities, lossless['cnp_priority']))
    _check_dscp_map(lossless, priorities, issues)
    ecn = lossless['ecn']
    if ecn['min_threshold_bytes'] >= ecn['max_threshold_bytes']:
        issues.add('lossless.ecn.min_threshold_bytes', ecn['min_threshold_bytes'],
                   'must be below lossless.ecn.max_threshold_bytes (%d)' % ecn['max_threshold_bytes'])
    scheduler = lossless['scheduler']
    total = scheduler['lossless_weight_percent'] + scheduler['lossy_weight_percent']
    if total != 100:
        issues.add('lossless.scheduler', scheduler, 'lossless_weight_percent + lossy_weight_percent must be 100 (got %d)' % total)
    idle = idle_traffic_classes(lossless)
    if idle and scheduler['lossy_weight_percent'] <= len(idle):
        issues.add('lossless.scheduler.lossy_weight_percent', scheduler['lossy_weight_percent'],
                   'must be above %d: the %d traffic classes no DSCP maps to (%s) take 1 %% each from the lossy share, '
                   'so that only the CNP class is strict priority'
                   % (len(idle), len(idle), ', '.join(str(tc) for tc in idle)))
    if scheduler['lossless_weight_percent'] < len(priorities):
        issues.add('lossless.scheduler.lossless_weight_percent', scheduler['lossless_weight_percent'],
                   'must give each of the %d lossless priorities at least 1 %%' % len(priorities))
    mtu = lossless['mtu']
    overhead = VXLAN_OVERHEAD if intent['hosts']['attachment'] == 'evpn' else 0
    if mtu['host'] + overhead > mtu['switch']:
        issues.add('lossless.mtu.host', mtu['host'],
                   'plus %d bytes of %s overhead must fit the switch MTU %d (largest host MTU: %d)'
                   % (overhead, 'VXLAN' if overhead else 'no', mtu['switch'], mtu['switch'] - overhead))
    if lossless['buffer']['lossless_mtu'] > mtu['switch']:
        issues.add('lossless.buffer.lossless_mtu', lossless['buffer']['lossless_mtu'],
                   'must not exceed the switch MTU %d' % mtu['switch'])
    watchdog = lossless['pfc']['watchdog']
    for platform_name, selected_at in platforms_in_use(intent).items():
        platform = PLATFORMS[platform_name]
        if mtu['switch'] > platform.mtu_max:
            issues.add('lossless.mtu.switch', mtu['switch'],
                       'exceeds the %s maximum of %d (selected by %s)' % (platform.title, platform.mtu_max, selected_at))
        if not platform.lossless_dataplane:
            continue
        if len(priorities) > platform.max_lossless_priorities:
            issues.add(['lossless', 'pfc', 'priorities', platform.max_lossless_priorities], priorities,
                       '%s allows at most %d lossless priorities (selected by %s)'
                       % (platform.title, platform.max_lossless_priorities, selected_at))
        if platform.strict_queue_on_top and TOP_QUEUE in priorities and lossless['cnp_priority'] != TOP_QUEUE:
            issues.add('lossless.pfc.priorities', priorities,
                       'must not hold priority %d on %s (selected by %s): it serves a strict-priority queue only '
                       'above every round-robin one, so the CNP class takes queue %d; use lossless priorities below %d '
                       'or lossless.cnp_priority %d' % (TOP_QUEUE, platform.title, selected_at, TOP_QUEUE, TOP_QUEUE,
                                                        TOP_QUEUE))
        if watchdog['enabled']:
            _check_watchdog(platform, watchdog, selected_at, issues)


def _check_dscp_map(lossless, priorities, issues):
    reserved = {lossless['roce_dscp']: 'lossless.roce_dscp', lossless['cnp_dscp']: 'lossless.cnp_dscp'}
    classes = sorted(set(priorities) | {lossless['default_traffic_class']})
    seen = {}
    for index, entry in enumerate(lossless['dscp_map']):
        base = 'lossless.dscp_map[%d]' % index
        if entry['dscp'] in reserved:
            issues.add(base + '.dscp', entry['dscp'], 'is already set by %s' % reserved[entry['dscp']])
        elif entry['dscp'] in seen:
            issues.add(base + '.dscp', entry['dscp'], 'duplicates lossless.dscp_map[%d].dscp' % seen[entry['dscp']])
        seen.setdefault(entry['dscp'], index)
        if entry['traffic_class'] not in classes:
            issues.add(base + '.traffic_class', entry['traffic_class'],
                       'must be a lossless priority or the default class (%s): other classes get no bandwidth'
                       % ', '.join(str(tc) for tc in classes))


def _check_watchdog(platform, watchdog, selected_at, issues):
    rules = platform.watchdog
    base = 'lossless.pfc.watchdog.'
    suffix = ' on %s (selected by %s)' % (platform.title, selected_at)
    if watchdog['action'] not in rules.actions:
        issues.add(base + 'action', watchdog['action'], 'must be one of: %s%s' % (', '.join(rules.actions), suffix))
    for key, rule in (('detection_ms', rules.detection), ('restoration_ms', rules.restoration),
                      ('poll_interval_ms', rules.poll_interval)):
        problem = rule.problem(watchdog[key]) if rule else None
        if problem:
            unit_note = ' (%s takes seconds: %s s)' % (platform.label, _seconds(watchdog[key])) if rules.unit == 's' else ''
            issues.add(base + key, watchdog[key], problem + unit_note + suffix)
    if rules.robustness_max:
        poll = watchdog['poll_interval_ms']
        robustness, remainder = divmod(watchdog['detection_ms'], poll)
        if remainder or not 1 <= robustness <= rules.robustness_max:
            issues.add(base + 'detection_ms', watchdog['detection_ms'],
                       'must be poll_interval_ms x robustness with robustness 1..%d (poll %d ms)%s'
                       % (rules.robustness_max, poll, suffix))
    for key in ('detection_ms', 'restoration_ms'):
        if rules.detection and watchdog[key] < watchdog['poll_interval_ms']:
            issues.add(base + key, watchdog[key], 'must be at least poll_interval_ms (%d)%s' % (watchdog['poll_interval_ms'], suffix))


def _seconds(value_ms: int) -> str:
    return ('%.3f' % (value_ms / 1000)).rstrip('0').rstrip('.')


def named_pools(intent) -> list:
    """(path, network) of every address pool in the intent, for overlap checks and docs."""
    pools = []
    underlay = intent['underlay']['pools']
    for key in ('loopback', 'vtep'):
        pools.append(('underlay.pools.%s' % key, underlay[key]))
    if intent['underlay']['routing'] == 'ebgp_numbered':
        pools.append(('underlay.pools.p2p', underlay['p2p']))
    if intent['hosts']['attachment'] == 'routed':
        pools.append(('underlay.pools.host_p2p', underlay['host_p2p']))
    for index, network in enumerate(intent['overlay']['networks']):
        pools.append(('overlay.networks[%d].subnet' % index, network['subnet']))
    if intent['management']['pool']:
        pools.append(('management.pool', intent['management']['pool']))
    return [(path, ipaddress.IPv4Network(value)) for path, value in pools]


def _check_pools(intent, issues):
    pools = named_pools(intent)
    for (path_a, net_a), (path_b, net_b) in itertools.combinations(pools, 2):
        if net_a.overlaps(net_b):
            issues.add(path_b, str(net_b), 'overlaps %s (%s); every pool must be disjoint' % (path_a, net_a))


def _check_duplicates(items, key, base, issues, describe=None):
    seen = {}
    for index, item in enumerate(items):
        value = item.get(key)
        if value is None:
            continue
        if value in seen:
            issues.add('%s[%d].%s' % (base, index, key), value,
                       'duplicates %s[%d].%s%s' % (base, seen[value], key, describe or ''))
        else:
            seen[value] = index


def _check_management(intent, issues):
    management = intent['management']
    if management['allowed_sources']:
        lacking = {name: selected_at for name, selected_at in platforms_in_use(intent).items()
                   if not PLATFORMS[name].management_acl}
        if lacking:
            issues.add('management.allowed_sources', management['allowed_sources'],
                       'is rendered only by %s; not by %s' % (
                           ', '.join(platform.title for platform in PLATFORMS.values() if platform.management_acl),
                           ', '.join('%s (selected by %s)' % (PLATFORMS[name].title, where)
                                     for name, where in sorted(lacking.items()))))
    gateway, pool = management['gateway'], management['pool']
    if gateway is not None:
        if not pool:
            issues.add('management.gateway', gateway, 'needs management.pool (the network the gateway is on)')
        else:
            network = ipaddress.IPv4Network(pool)
            hosts = (network.network_address + 1, network.broadcast_address - 1) if network.prefixlen < 31 else \
                (network.network_address, network.broadcast_address)
            if not hosts[0] <= ipaddress.IPv4Address(gateway) <= hosts[1]:
                issues.add('management.gateway', gateway, 'must be a host address of management.pool %s (%s..%s)'
                           % (pool, hosts[0], hosts[1]))
    _check_duplicates(management['users'], 'name', 'management.users', issues)


def network_vni(intent, network) -> int:
    return network['vni'] if network['vni'] is not None else intent['overlay']['l2vni_base'] + network['vlan']


def _check_overlay(intent, issues):
    overlay = intent['overlay']
    vrfs, networks = overlay['vrfs'], overlay['networks']
    reserved = reserved_vrf_names()
    for index, vrf in enumerate(vrfs):
        if vrf['name'].lower() in reserved:
            issues.add('overlay.vrfs[%d].name' % index, vrf['name'],
                       'is a name the network OSes keep for themselves (%s); choose another'
                       % ', '.join(sorted(reserved)))
    _check_duplicates(vrfs, 'name', 'overlay.vrfs', issues)
    _check_duplicates(vrfs, 'vlan', 'overlay.vrfs', issues)
    _check_duplicates(networks, 'name', 'overlay.networks', issues)
    _check_duplicates(networks, 'vlan', 'overlay.networks', issues)
    vni_owner = {}
    for index, vrf in enumerate(vrfs):
        vni_owner.setdefault(vrf['l3vni'], []).append(('overlay.vrfs[%d].l3vni' % index, vrf['l3vni']))
    for index, network in enumerate(networks):
        vni = network_vni(intent, network)
        vni_owner.setdefault(vni, []).append(('overlay.networks[%d].vni' % index, vni))
    for owners in vni_owner.values():
        for path, value in owners[1:]:
            issues.add(path, value, 'duplicates the VNI of %s; every VNI must be unique' % owners[0][0])
    vrf_vlans = {vrf['vlan'] for vrf in vrfs if vrf['vlan'] is not None}
    vrf_names = {vrf['name'] for vrf in vrfs}
    routed = {network['vrf'] for network in networks}
    for index, vrf in enumerate(vrfs):
        if vrf['name'] not in routed:
            issues.add('overlay.vrfs[%d].name' % index, vrf['name'],
                       'has no network (no overlay.networks[].vrf names it), so no device would configure it: put a '
                       'network in it or remove it')
    for index, network in enumerate(networks):
        base = 'overlay.networks[%d]' % index
        if network['vlan'] in vrf_vlans:
            issues.add(base + '.vlan', network['vlan'], 'is already the L3VNI VLAN of a VRF')
        if network['vrf'] is not None and network['vrf'] not in vrf_names:
            issues.add(base + '.vrf', network['vrf'],
                       'is not a defined VRF (defined: %s)' % (', '.join(sorted(vrf_names)) or 'none'))
        if network['gateway'] is not None:
            if network['vrf'] is None:
                issues.add(base + '.gateway', network['gateway'], 'needs a vrf: only routed networks have a gateway')
            elif ipaddress.IPv4Address(network['gateway']) not in ipaddress.IPv4Network(network['subnet']):
                issues.add(base + '.gateway', network['gateway'], 'must lie inside the subnet %s' % network['subnet'])
        if len(set(network['rails'])) != len(network['rails']):
            issues.add(base + '.rails', network['rails'], 'must not repeat a rail')
    rail_owner = {}
    for index, network in enumerate(networks):
        for position, rail in enumerate(network['rails']):
            if rail in rail_owner and rail_owner[rail] != index:
                issues.add('overlay.networks[%d].rails[%d]' % (index, position), rail,
                           'is already attached to overlay.networks[%d]; a rail belongs to one network' % rail_owner[rail])
            rail_owner.setdefault(rail, index)


def idle_traffic_classes(lossless) -> list:
    """Traffic classes no DSCP maps to: not lossless, not the CNP class, not the default class."""
    used = set(lossless['pfc']['priorities']) | {lossless['cnp_priority'], lossless['default_traffic_class']}
    return [tc for tc in range(8) if tc not in used]


def _check_underlay(intent, issues):
    asn = intent['underlay']['asn']
    fields = intent['underlay']['ecmp']['hash_fields']
    if 'l4_src_port' not in fields:
        issues.add('underlay.ecmp.hash_fields', fields,
                   'must include l4_src_port: RoCEv2 flows differ only in their UDP source port (one per queue pair)')
    timers = intent['underlay']['timers']
    if timers['hold_s'] < 3 * timers['keepalive_s']:
        issues.add('underlay.timers.hold_s', timers['hold_s'],
                   'must be at least 3 x underlay.timers.keepalive_s (%d)' % (3 * timers['keepalive_s']))
    if asn['leaf_first'] > asn['leaf_last']:
        issues.add('underlay.asn.leaf_last', asn['leaf_last'], 'must be at least underlay.asn.leaf_first (%d)' % asn['leaf_first'])
    for role in ('spine', 'super_spine'):
        if asn['leaf_first'] <= asn[role] <= asn['leaf_last']:
            issues.add('underlay.asn.%s' % role, asn[role],
                       'lies inside the leaf ASN range %d-%d' % (asn['leaf_first'], asn['leaf_last']))
    if asn['spine'] == asn['super_spine']:
        issues.add('underlay.asn.super_spine', asn['super_spine'], 'must differ from underlay.asn.spine')


def _check_hosts(intent, issues):
    hosts = intent['hosts']
    for key in ('rail_interfaces', 'rdma_devices'):
        seen = set()
        for index, name in enumerate(hosts[key]):
            if name in seen:
                issues.add(['hosts', key, index], name, 'is listed twice')
            seen.add(name)
    if hosts['bootstrap_interface'] in hosts['rail_interfaces']:
        issues.add('hosts.bootstrap_interface', hosts['bootstrap_interface'], 'must not be a rail interface')
    for key in hosts['nccl']['extra']:
        if key in NCCL_MANAGED_KEYS:
            issues.add(['hosts', 'nccl', 'extra', key], hosts['nccl']['extra'][key],
                       'is derived from the intent; set it through hosts.nccl or the lossless profile instead')
    if hosts['attachment'] == 'evpn' and not intent['overlay']['networks']:
        issues.add('overlay.networks', [], 'must define a network per rail when hosts.attachment is evpn')


__all__ = ['load_intent', 'load_intent_file', 'read_intent_file', 'read_intent_file_located', 'read_intent_text', 'validate_intent',
           'schema_validator_class', 'inline_local_refs', 'resolve', 'load_schema', 'apply_defaults',
           'platforms_in_use', 'named_pools',
           'network_vni', 'format_path', 'idle_traffic_classes', 'nos_release', 'reserved_vrf_names', 'schema_default']
