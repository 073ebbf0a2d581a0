// Removes the previous build's outputs (dist/index.html, dist/assets) and nothing else:
// dist/.gitkeep is committed so that Go's `//go:embed all:frontend/dist` works on a fresh clone.
import { rmSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
mkdirSync(dist, { recursive: true });
rmSync(join(dist, 'index.html'), { force: true });
rmSync(join(dist, 'assets'), { recursive: true, force: true });
if (!existsSync(join(dist, '.gitkeep'))) writeFileSync(join(dist, '.gitkeep'), '');
