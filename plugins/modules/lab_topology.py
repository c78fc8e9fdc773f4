#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: lab_topology
short_description: Generate the containerlab topology of a fabric's digital twin from its intent
version_added: 1.0.0
description:
  - Designs the fabric from its intent (once per controller process) and returns the containerlab
    topology of its lab twin, the lab's node list and a static Ansible inventory of it.
  - Every switch becomes an FRR node and every GPU server a Linux node, wired as the design's links with
    the design's port names (MTU = the switch MTU of the intent); each node's static management address
    is its design C(management_ip) on a lab-private management network (the intent's C(management.pool)).
  - Nodes are unprivileged with the capabilities C(NET_ADMIN), C(NET_RAW) and C(SYS_ADMIN); images are
    never pulled (containerlab C(image-pull-policy) C(never)).
  - Runs on the controller only; fails with every problem listed when the intent cannot make a lab
    (no C(management.pool), non-FRR switches, management addresses outside the pool).
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent YAML file. Defaults to the C(aifabric_intent) variable.
    type: path
  image:
    description:
      - The node image (built locally by the M(aifabric.fabric.lab) role).
    type: str
    required: true
  workdir:
    description:
      - The lab's work directory; the topology file, SSH key and lab directory live there.
    type: path
    required: true
  prefix:
    description:
      - Prefix of container and management network names (C(<prefix>-<fabric>-<node>)).
    type: str
    default: aifabric
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: all
    support: full
seealso:
  - module: aifabric.fabric.device_info
"""

EXAMPLES = r"""
- name: Generate the lab topology
  aifabric.fabric.lab_topology:
    intent: inventories/lab/intent.yml
    image: aifabric/lab-node:0123456789ab
    workdir: build/labs/lab
  register: lab
"""

RETURN = r"""
name:
  description: containerlab lab name (the intent name).
  returned: always
  type: str
network:
  description: Docker network of the lab's management network.
  returned: always
  type: str
subnet:
  description: Management subnet (the intent's management.pool).
  returned: always
  type: str
topology:
  description: The containerlab topology, to be written as YAML.
  returned: always
  type: dict
topology_file:
  description: Where the topology file belongs (in O(workdir)).
  returned: always
  type: str
nodes:
  description: Lab nodes with role, platform, management address and container name.
  returned: always
  type: list
  elements: dict
inventory:
  description: Static YAML inventory of the lab (hosts, groups by role, SSH key).
  returned: always
  type: dict
private_key:
  description: Path of the lab's SSH private key.
  returned: always
  type: str
public_key:
  description: Path of the lab's SSH public key (bound into every node as root's authorized_keys).
  returned: always
  type: str
"""
