#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm run lint` (and `npm run lint:fix`): n8n's own `n8n-node lint` (strict mode: the root
 * eslint.config.mjs must be n8n's template, unchanged), with ESLint taking each file's
 * configuration from the nearest eslint.config.mjs above it. So nodes/, credentials/ and
 * package.json get n8n's rules, and sandbox/, test/, bench/ and scripts/ their own
 * (scripts/lint/tools.mjs), in one run over every folder.
 *
 * ESLint 9 does that only behind a flag, which this sets. ESLint 10 does it by default, but
 * @n8n/node-cli 0.48.3 pins typescript-eslint 8.35.0 and eslint-plugin-n8n-nodes-base 1.x, which
 * crash under ESLint 10, and forcing newer ones needs npm `overrides`, which n8n's own lint and
 * scanner refuse in package.json (docs/decisions.md#d9). Plain `npx n8n-node lint` runs without
 * the flag: ESLint then applies n8n's rules to the tools too.
 */
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..', '..');
const FLAG = 'unstable_config_lookup_from_file';

const flags = [...new Set([...(process.env.ESLINT_FLAGS || '').split(',').map((f) => f.trim()).filter(Boolean), FLAG])];
const bin = path.join(REPO, 'node_modules', '@n8n', 'node-cli', 'bin', 'n8n-node.mjs');
const res = spawnSync(process.execPath, [bin, 'lint', ...process.argv.slice(2)], {
	cwd: REPO,
	stdio: 'inherit',
	env: { ...process.env, ESLINT_FLAGS: flags.join(',') },
});
process.exitCode = res.status === null ? 1 : res.status;
