// A synthetic home for the scale test, the same layout as backend/benchhome/benchhome.go:
// N portable plugins under $PLUGBOARD_HOME/plugins/plugin-NNNN, each with K skills and an mcp.json.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const pluginJSON = (id, p) => `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "${id}",
  "version": "1.0.${p}",
  "description": "Synthetic plugin ${p} for benchmarks",
  "author": {"name": "Bench", "email": "bench@example.com"},
  "license": "MIT",
  "keywords": ["bench", "synthetic"]
}
`;

const mcpJSON = (p) => `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
  "mcpServers": {
    "local-${p}": {
      "type": "stdio",
      "command": "./bin/server",
      "args": ["--data", "\${PLUGIN_DATA}/cache", "--verbose"],
      "env": {"CONFIG": "\${PLUGIN_ROOT}/config.json"},
      "cwd": "\${PLUGIN_ROOT}"
    },
    "remote-${p}": {
      "type": "streamable-http",
      "url": "http://127.0.0.1:9/mcp/${p}",
      "headers": {"X-Tenant": "public"}
    }
  }
}
`;

const skillMD = (name, s, p) => `---
name: ${name}
description: Use when the synthetic benchmark needs skill ${s} of plugin ${p}; it summarises a long artifact and keeps the evidence links.
license: MIT
metadata:
  author: bench
  version: "1.0"
---

# Skill ${s}

Read the whole artifact, keep every evidence link, and report the main result in five lines.

1. Find the artifact.
2. Read it completely.
3. Summarise it.
`;

/** Writes plugins×skills under pbHome/plugins. */
export function generate(pbHome, plugins, skills) {
  for (let p = 0; p < plugins; p++) {
    const id = `plugin-${String(p).padStart(4, '0')}`;
    const root = join(pbHome, 'plugins', id);
    mkdirSync(join(root, 'bin'), { recursive: true });
    writeFileSync(join(root, 'plugin.json'), pluginJSON(id, p));
    writeFileSync(join(root, 'mcp.json'), mcpJSON(p));
    for (let s = 0; s < skills; s++) {
      const name = `p${String(p).padStart(4, '0')}-skill-${String(s).padStart(2, '0')}`;
      const dir = join(root, 'skills', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'SKILL.md'), skillMD(name, s, p));
    }
  }
}
