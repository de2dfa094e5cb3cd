/**
 * A real n8n server for the end-to-end, browser and queue-mode tiers and the quick start: the one
 * import for callers (`import * as rt from './n8n'`). Each concern has its own file:
 *   versions.ts           which Node 24 and n8n, and where they are cached
 *   install.ts            installing them into that cache, once per version
 *   processes.ts          ports, process groups, memory
 *   server.ts             starting and stopping an n8n server (and its environment)
 *   cli.ts                n8n's command line (import, execute)
 *   api.ts                its REST and public APIs, and readers of executions
 *   community-package.ts  the built pack installed as a community package
 *   selftest.ts           the chain checked with n8n's own nodes only
 * The command line (install, where, selftest) is scripts/n8n-runtime.ts.
 */

export { NODE_VERSION, N8N_PROFILES, resolveN8nVersion, n8nVersion, cacheRoot } from './versions';
export { ensureNode24, ensureN8n, type N8nRuntime } from './install';
export { freePort, canConnect, processTreeRssKb, type ProcessMemory } from './processes';
export { n8nEnv, hashPassword, startN8n, type N8nHandle, type Owner, type StartOptions } from './server';
export { n8nCli, importJson, parseJsonOutput, type CliResult } from './cli';
export { login, createApiKey, publicApi, nodeOutput, executionError, type Execution, type Json, type PublicApi, type Session } from './api';
export { builtPackDir, installPack } from './community-package';
export { selfTest } from './selftest';
