/**
 * Environment n8n-core reads when it is first loaded. Import this module before anything that
 * imports n8n-core (bench/run.ts and every child entry do it first).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

if (!process.env.N8N_USER_FOLDER) process.env.N8N_USER_FOLDER = mkdtempSync(path.join(tmpdir(), 'n8n-money-bench-'));
process.env.N8N_ENCRYPTION_KEY = process.env.N8N_ENCRYPTION_KEY || 'bench-encryption-key-not-a-secret';
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL || 'silent';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';

setFlagsFromString('--expose-gc');
const exposedGc = runInNewContext('gc') as () => void;

/** A full garbage collection, so memory readings and timed runs start from the same heap. */
export function collectGarbage(): void {
	exposedGc();
	exposedGc();
}
