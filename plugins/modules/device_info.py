#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: device_info
short_description: Return the designed model and rendered configuration of one fabric device
version_added: 1.0.0
description:
  - Loads the fabric intent (once per controller process), designs the whole fabric and returns the
    model of one switch or GPU server together with its rendered configuration files.
  - Runs on the controller only; nothing is sent to the device.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent YAML file.
      - Defaults to the C(aifabric_intent) variable that the P(aifabric.fabric.fabric#inventory) inventory plugin sets.
    type: path
  device:
    description:
      - Device name. Defaults to C(inventory_hostname).
    type: str
  render:
    description:
      - Also render the device's configuration files.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: all
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
notes:
  - The intent is validated before anything is returned; every problem is reported at once with its path.
seealso:
  - plugin: aifabric.fabric.fabric
    plugin_type: inventory
"""

EXAMPLES = r"""
- name: Get the model and rendered files of this device
  aifabric.fabric.device_info:
  register: device

- name: Show the BGP neighbors the design expects
  ansible.builtin.debug:
    var: device.model.bgp.neighbors
"""

RETURN = r"""
model:
  description: Device model (interfaces, BGP, EVPN, QoS, buffers for switches; rails, RNIC, NCCL for hosts).
  returned: always
  type: dict
files:
  description: Rendered configuration files, file name to content.
  returned: when render is true
  type: dict
fabric_files:
  description:
    - Files of the fabric as a whole, file name to content, such as the Kubernetes rail networks
      (C(k8s/<fabric>-rail<N>.*.yaml)); the same for every GPU server of the fabric.
  returned: when render is true and the device is a GPU server
  type: dict
ansible_facts:
  description: The model as the C(aifabric_device) fact.
  returned: always
  type: dict
"""
