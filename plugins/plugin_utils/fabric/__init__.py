# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric design engine: intent -> validated design -> per-device models -> rendered configurations.

Pure Python (Jinja2, PyYAML, jsonschema); importable without Ansible:

    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    design = design_from_file('fabrics/lab.yml')
    model = design.device('leaf001')
"""
