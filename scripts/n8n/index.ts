/**
 * A real n8n server for the end-to-end, browser and queue-mode tiers and the quick start: the one
 * import for callers (`import * as rt from './n8n'`). Each concern has its own file:
 *   versions.ts           the tested n8n versions, what each needs, and where they are cached
 *   node-choice.ts        which Node runs that n8n (the system's or the registry's build)
 *   install.ts            installing them into that cache, once per version
 *   cache-install.ts      the cache's lock, temporary folders and completion markers
 *   processes.ts          ports, process groups, memory
 *   server.ts             starting and stopping an n8n server (and its environment)
 *   cli.ts                n8n's command line (import, execute)
 *   api.ts                its REST and public APIs, and readers of executions
 *   community-package.ts  the built pack installed as a community package
 *   selftest.ts           the chain checked with n8n's own nodes only
 * The command line (install, where, selftest) is scripts/n8n-runtime.ts.
 */

export { TESTED_N8N, N8N_PROFILES, resolveN8nVersion, n8nVersion, cacheRoot } from './versions';
export { ensureNode, ensureN8n, type N8nRuntime, type NodeRuntime } from './install';
export { freePort, canConnect, processTreeRssKb, type ProcessMemory } from './processes';
export { n8nEnv, hashPassword, startN8n, type N8nHandle, type Owner, type StartOptions } from './server';
export { n8nCli, importJson, parseJsonOutput, type CliResult } from './cli';
export { login, createApiKey, fetchText, publicApi, nodeOutput, executionError, type Execution, type Json, type PublicApi, type Session } from './api';
export { builtPackDir, installPack, installPackedTarball, type TarballInstall } from './community-package';
export { selfTest } from './selftest';
